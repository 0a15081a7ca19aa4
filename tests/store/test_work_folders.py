"""Work folders beside an output: swept once their owner is gone, never while it runs; a
previous output moved aside by a swap cut short is put back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from valuechain.store.work_folders import EXPORT_WORK_FOLDERS, STAGING, sweep, work_folder


def _gone_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_the_folders_of_ended_processes_are_removed(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    mine = work_folder(lake, STAGING)
    dead = tmp_path / f".lake.export-{_gone_pid()}-0123456789ab"
    parent = tmp_path / f".other.export-{os.getppid()}-0123456789ab"  # a running process
    unrelated = tmp_path / ".lake.export-old"  # not a work folder's name: not ours to judge
    for folder in (mine, dead, parent, unrelated):
        (folder / "spans").mkdir(parents=True)
    assert sweep(tmp_path, EXPORT_WORK_FOLDERS) == [dead]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (mine, parent, unrelated)
    )


def test_a_previous_output_moved_aside_comes_back_when_the_swap_was_cut(tmp_path: Path) -> None:
    pid = _gone_pid()
    replaced = tmp_path / f".lake.replaced-{pid}-0123456789ab"
    (replaced / "spans").mkdir(parents=True)
    (replaced / "spans" / "data.parquet").write_bytes(b"previous")
    staged = tmp_path / f".lake.export-{pid}-0123456789ab"
    staged.mkdir()
    sweep(tmp_path, EXPORT_WORK_FOLDERS)
    assert [p.name for p in tmp_path.iterdir()] == ["lake"]
    assert (tmp_path / "lake" / "spans" / "data.parquet").read_bytes() == b"previous"
