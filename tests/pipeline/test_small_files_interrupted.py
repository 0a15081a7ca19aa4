"""Ctrl-C while a group of small files is read: the group is undone whole, the files committed
before it stay, the one line says which were kept and which group was undone, and the next
import reaches the store an uninterrupted one gives (``interrupt_harness.py``, ``read``: the
second file is being read)."""

from __future__ import annotations

from pathlib import Path

import orjson
from interrupted import cli, comparable, harness

from valuechain.store import Database
from valuechain.synth import SynthConfig
from valuechain.synth.runs import generate_requests


def _folder(out: Path) -> list[Path]:
    out.mkdir()
    paths = []
    for k, request in enumerate(generate_requests(SynthConfig(runs=1, cases=2, models=1, seed=5))):
        path = out / f"t{k}.json"
        path.write_bytes(orjson.dumps(request))
        paths.append(path)
    return paths


def test_ctrl_c_mid_group_undoes_the_group_and_says_so(tmp_path: Path) -> None:
    files = _folder(tmp_path / "in")
    assert len(files) == 4
    reference = tmp_path / "reference.duckdb"
    assert cli("--store", reference, "import", "--workers", "0", *files).exit_code == 0
    store = tmp_path / "s.duckdb"
    done = harness("read", "SIGINT", "--store", store, "import", "--workers", "0", *files)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == (
        "interrupted: 0 of 4 files imported and kept; the group of 4 small files t0.json … "
        "t3.json undone (nothing of them was written)"
    )
    with Database(store, read_only=True) as db:
        assert db.sql("SELECT count(*) FROM core.sources").item() == 0
        assert db.sql("SELECT count(*) FROM core.spans").item() == 0
    again = cli("--store", store, "import", "--workers", "0", *files)
    assert again.exit_code == 0, again.output
    assert comparable(store) == comparable(reference)
