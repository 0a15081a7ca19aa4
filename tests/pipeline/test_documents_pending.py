"""A derive killed after its chains commit and before its documents leaves a named, pending
state (issue 38 point 7): `runs` warns naming the runs and the command that completes them,
and the next writing command writes the documents, reaching the store an uninterrupted derive
gives. The kill is a real SIGKILL at that exact point (``interrupt_harness.py``,
``materialize``: every chain is written, the analytics documents are not)."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest
from interrupted import Dump, cli, comparable, harness

from valuechain.store import Database
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding two runs derived and materialized at the current analyzer."""
    folder = tmp_path_factory.mktemp("imported")
    export = write_export(folder / "a.jsonl", SynthConfig(runs=2, seed=3), ndjson=True).path
    store = folder / "s.duckdb"
    result = cli("--store", store, "import", "--workers", "0", export)
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="module")
def derived_at_11(imported: Path, tmp_path_factory: pytest.TempPathFactory) -> Dump:
    store = tmp_path_factory.mktemp("reference") / "s.duckdb"
    shutil.copy(imported, store)
    result = cli("--store", store, "derive", "--analyzer", "11")
    assert result.exit_code == 0, result.output
    return comparable(store)


def _runs(store: Path) -> list[str]:
    with Database(store, read_only=True) as db:
        rows = db.con.execute("SELECT DISTINCT run_id FROM core.trials").fetchall()
        return [str(r[0]) for r in rows]


def test_a_derive_killed_before_its_documents_is_named_and_completed(
    imported: Path, derived_at_11: Dump, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    shutil.copy(imported, store)
    assert "warning" not in cli("--store", store, "runs").stderr  # nothing pending before
    done = harness("materialize", "SIGKILL", "--store", store, "derive", "--analyzer", "11")
    assert done.returncode == -signal.SIGKILL, done.stderr
    with Database(store, read_only=True) as db:  # the chains at 11 are in, their documents not
        assert db.sql("SELECT count(*) FROM core.stage_chain WHERE analyzer_version = 11").item()
        assert not db.sql(
            "SELECT count(*) FROM core.analytics_runs WHERE analyzer_version = 11"
        ).item()
    listing = cli("--store", store, "runs")
    assert listing.exit_code == 0
    warning = listing.stderr
    assert "2 runs have chains but missing or outdated analytics documents" in warning
    assert all(run in warning for run in _runs(store))
    assert "run valuechain derive" in warning
    again = cli("--store", store, "derive", "--analyzer", "11")
    assert again.exit_code == 0, again.output
    assert "completed an unfinished derivation first: wrote the analytics documents" in again.stderr
    assert "warning" not in cli("--store", store, "runs").stderr
    assert comparable(store) == derived_at_11
