"""SIGKILL the ``store`` operations mid-way: ``delete`` and ``purge-content`` inside their
transaction, ``vacuum`` while it writes its copy / with the copy complete / just swapped in,
``migrate`` (of a real older store) with the copy made but not migrated / migrated but not
swapped / just swapped. Each time the store opens, holds all or nothing of the operation (the
store as it was — a migrated store's old file byte for byte — or as the operation leaves it),
no work file is left behind once the store is used again, and running the command again
reaches exactly the store of an uninterrupted run — its log of operations included.

Each kill is a real signal the process sends itself at one exact point
(``interrupt_harness.py``).
"""

from __future__ import annotations

import gzip
import shutil
import signal
from pathlib import Path

import pytest
from interrupted import Dump, comparable, harness

from valuechain.store import STORE_SCHEMA_VERSION, Database
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export

OLD_STORE = Path(__file__).resolve().parents[2] / "fixtures" / "stores" / "schema-v6.duckdb.gz"


def _run(point: str, store: Path, *args: str) -> None:
    done = harness(point, "SIGKILL", "--store", store, *args)
    expected = 0 if point == "none" else -signal.SIGKILL
    assert done.returncode == expected, done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of two runs, one of them deleted (so a vacuum has blocks to reclaim)."""
    folder = tmp_path_factory.mktemp("store-ops")
    export = folder / "runs.jsonl"
    write_export(export, SynthConfig(runs=3, cases=2, models=2, reps=2, seed=5), ndjson=True)
    store = folder / "imported.duckdb"
    _run("none", store, "import", "--workers", "0", str(export))
    _run("none", store, "store", "delete", "--run", _runs(store)[-1])
    return store


def _runs(store: Path) -> list[str]:
    with Database(store, read_only=True) as db:
        rows = db.con.execute("SELECT DISTINCT run_id FROM core.trials ORDER BY 1").fetchall()
    return [r for (r,) in rows]


def _work_files(store: Path) -> list[str]:
    return sorted(p.name for p in store.parent.glob(f".{store.name}.*"))


def _reference(start: Path, folder: Path, args: tuple[str, ...]) -> Dump:
    """What the operation run uninterrupted on a copy of ``start`` leaves."""
    store = folder / "reference.duckdb"
    shutil.copyfile(start, store)
    _run("none", store, *args)
    return comparable(store)


OPERATIONS = [
    ("delete", "operation-log"),
    ("purge-content", "operation-log"),
    ("vacuum", "vacuum-copy"),
    ("vacuum", "operation-log"),
    ("vacuum", "swap"),
    ("vacuum", "swapped"),
]


@pytest.mark.parametrize(("operation", "point"), OPERATIONS)
def test_a_store_operation_killed_midway_changes_all_or_nothing_and_resumes_exactly(
    operation: str, point: str, imported: Path, tmp_path: Path
) -> None:
    args = ("store", operation) + (("--run", _runs(imported)[0]) if operation == "delete" else ())
    before = comparable(imported)
    reference = _reference(imported, tmp_path, args)
    store = tmp_path / "s.duckdb"
    shutil.copyfile(imported, store)
    _run(point, store, *args)
    if point != "swapped":  # the operation never happened (the store keeps every row): again
        assert comparable(store) == before
        _run("none", store, *args)
    assert comparable(store) == reference  # swapped: the copy is in, with its log row
    assert _work_files(store) == []


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    path = tmp_path / "old.duckdb"
    path.write_bytes(gzip.decompress(OLD_STORE.read_bytes()))
    return path


def _schema_version(store: Path) -> int:
    import duckdb  # noqa: PLC0415 - a raw open: Database refuses an older store read-only

    con = duckdb.connect(str(store), read_only=True)
    try:
        row = con.execute("SELECT value FROM core.meta WHERE key = 'schema_version'").fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("point", ["migrate-copy", "operation-log", "swap", "swapped"])
def test_a_migration_killed_midway_never_loses_the_old_store_and_resumes_exactly(
    point: str, old_store: Path, tmp_path: Path
) -> None:
    args = ("store", "migrate", "--no-backup")
    original = old_store.read_bytes()
    reference_start = tmp_path / "start.duckdb"
    reference_start.write_bytes(original)
    reference = _reference(reference_start, tmp_path, args)
    _run(point, old_store, *args)
    if point == "swapped":  # migrated, and the migration logged: again, nothing to do
        assert _schema_version(old_store) == STORE_SCHEMA_VERSION
    else:
        assert old_store.read_bytes() == original
    _run("none", old_store, *args)
    assert comparable(old_store) == reference
    assert _work_files(old_store) == []
