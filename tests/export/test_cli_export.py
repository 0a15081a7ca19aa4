"""``valuechain export --parquet`` and ``valuechain scale`` at the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_runner import EXAMPLE, red_line, run


def test_export_writes_and_then_refuses_a_full_folder(shared: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    assert run("--store", store, "import", shared / EXAMPLE).exit_code == 0
    done = run("--store", store, "export", "--parquet", tmp_path / "out")
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("exported 24 tables of 1 runs as ")
    again = run("--store", store, "export", "--parquet", tmp_path / "out")
    assert again.exit_code == 1
    assert "the folder is not empty" in red_line(again)
    assert "--overwrite" in red_line(again)


def test_scale_without_ray_names_the_extra(
    tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    result = run("scale", shared / EXAMPLE, "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert "pip install 'valuechain[ray]'" in red_line(result)
    assert not (tmp_path / "out").exists()
