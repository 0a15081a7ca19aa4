"""An import cut short after its sources committed — by SIGKILL, Ctrl-C, SIGHUP or a failing
later source — leaves a named state, and the next writing command reaches exactly the store an
uninterrupted import gives. Decode workers die with the importing process.

Each interruption is a real signal, sent by the process to itself at one exact point
(``interrupt_harness.py``), so every run stops at the same place.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from interrupted import Dump, alive, cli, comparable, harness, wait_until

from valuechain.errors import StoreError
from valuechain.pipeline import imports
from valuechain.pipeline.imports import ImportOptions, SourceResult, import_paths
from valuechain.store import Database
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export


def _in_two_commands(store: Path | Dump) -> Dump:
    """The comparable store, but for the one number that says the sources came in with two
    commands rather than one (``sources.import_id``, the ledger's second column)."""
    dump = comparable(store) if isinstance(store, Path) else store
    return {**dump, "sources": [row[:1] + row[2:] for row in dump["sources"]]}


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two sources of different runs: the store holds trials, chains and documents of both."""
    folder = tmp_path_factory.mktemp("exports")
    first, second = folder / "first.jsonl", folder / "second.jsonl"
    write_export(first, SynthConfig(runs=2, cases=2, models=2, reps=2, seed=3), ndjson=True)
    write_export(second, SynthConfig(runs=1, cases=3, models=1, reps=2, seed=4), ndjson=True)
    return first, second


@pytest.fixture(scope="module")
def uninterrupted(exports: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Dump:
    store = tmp_path_factory.mktemp("reference") / "reference.duckdb"
    result = cli("--store", store, "import", "--workers", "0", *exports)
    assert result.exit_code == 0, result.output
    reference = comparable(store)
    assert reference["trials"] and reference["analytics_documents"]  # something to lose
    assert reference["pending_derivations"] == []
    return reference


def _assert_names_the_pending_state(store: Path, sources: int) -> None:
    with Database(store, read_only=True) as db:
        pending = db.pending_derivation()
        assert pending is not None and pending.sources == sources
        assert db.sql("SELECT count(*) FROM core.spans").item() > 0
    listing = cli("--store", store, "runs")
    assert listing.exit_code == 0
    assert f"{sources} imported sources are not derived yet" in listing.stderr
    assert "run valuechain derive" in listing.stderr


SIGNALS = ("SIGKILL", "SIGINT", "SIGHUP")


@pytest.mark.parametrize(
    ("point", "sig"),
    [
        *(("derive", sig) for sig in SIGNALS),
        ("derive-batch", "SIGKILL"),
        ("materialize", "SIGKILL"),
    ],
)
def test_an_import_interrupted_after_its_sources_committed_is_derived_by_the_next_import(
    point: str, sig: str, exports: tuple[Path, Path], uninterrupted: Dump, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    done = harness(point, sig, "--store", store, "import", "--workers", "0", *exports)
    if sig == "SIGINT":  # Ctrl-C: one line saying what was kept, exit 130
        assert done.returncode == 130, done.stderr
        assert done.stderr.startswith("interrupted: 2 of 2 files imported and kept;")
    else:
        assert done.returncode == -signal.Signals[sig], done.stderr
    assert "Traceback" not in done.stderr
    _assert_names_the_pending_state(store, sources=2)
    if point == "derive":  # the reported defect: every span, not one trial
        with Database(store, read_only=True) as db:
            assert db.sql("SELECT count(*) FROM core.trials").item() == 0
    again = cli("--store", store, "import", "--workers", "0", *exports)  # all `unchanged`
    assert again.exit_code == 0, again.output
    assert again.stdout.count("unchanged") == 2
    assert "first completed an unfinished derivation" in again.stdout
    assert comparable(store) == uninterrupted


@pytest.mark.parametrize("verb", [("derive",), ("materialize",)])
def test_every_writing_verb_completes_a_pending_derivation_first(
    verb: tuple[str, ...], exports: tuple[Path, Path], uninterrupted: Dump, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    done = harness("derive", "SIGKILL", "--store", store, "import", "--workers", "0", *exports)
    assert done.returncode == -signal.SIGKILL
    result = cli("--store", store, *verb)
    assert result.exit_code == 0, result.output
    assert "completed an unfinished derivation first" in result.stderr
    assert comparable(store) == uninterrupted


def test_a_failing_later_source_leaves_the_earlier_ones_pending_then_derived(
    exports: tuple[Path, Path],
    uninterrupted: Dump,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = tmp_path / "s.duckdb"
    first, second = exports
    real = imports.import_file

    def failing_on_the_second(db: Database, path: Path, *args: Any, **kw: Any) -> SourceResult:
        if path == second:
            raise RuntimeError("disk on fire")
        return real(db, path, *args, **kw)

    monkeypatch.setattr(imports, "import_file", failing_on_the_second)
    options = ImportOptions()
    with Database(store) as db, pytest.raises(RuntimeError, match="disk on fire"):
        import_paths(db, [first, second], options)
    monkeypatch.undo()
    with Database(store, read_only=True) as db:
        pending = db.pending_derivation()
        assert pending is not None and pending.sources == 1  # the first source, committed
        assert db.sql("SELECT count(*) FROM core.trials").item() == 0
    with Database(store) as db:
        report = import_paths(db, [first, second], options)
        assert [s.outcome for s in report.sources] == ["unchanged", "imported"]
        assert report.completed is not None and report.completed.trials > 0
        assert report.pending is None
    assert _in_two_commands(store) == _in_two_commands(uninterrupted)


def test_no_derive_leaves_the_state_named_until_a_derive(
    exports: tuple[Path, Path], uninterrupted: Dump, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    for path in exports:  # a later --no-derive import does not derive the earlier one
        result = cli("--store", store, "import", "--workers", "0", "--no-derive", path)
        assert result.exit_code == 0, result.output
    assert "2 imported sources are not derived yet" in " ".join(result.stdout.split())
    _assert_names_the_pending_state(store, sources=2)
    assert cli("--store", store, "derive").exit_code == 0
    assert _in_two_commands(store) == _in_two_commands(uninterrupted)
    assert "not derived" not in cli("--store", store, "runs").stderr


def test_an_older_store_with_underived_spans_is_recorded_pending_on_upgrade(
    exports: tuple[Path, Path], tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    with Database(store) as db:  # a version-3 store: spans, no trials, no record of it
        assert import_paths(db, [exports[0]], ImportOptions(derive=False)).ok
        db.con.execute("DROP TABLE core.pending_derivations")
        db.con.execute("UPDATE core.meta SET value = '3' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="older"):
        Database(store, read_only=True)
    with Database(store) as db:
        pending = db.pending_derivation()
        assert pending is not None and pending.sources == 1
        traces = db.sql("SELECT count(DISTINCT trace_id) FROM core.spans").item()
        assert pending.traces == traces


# ---------------------------------------------------------------------------- workers
def test_decode_workers_exit_when_the_import_is_killed(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"  # larger than one batch: decoded by the workers
    summary = write_export(big, SynthConfig(runs=2, cases=10, models=3, reps=14), ndjson=True)
    assert summary.bytes_written > 2 * (8 << 20)
    pids = tmp_path / "pids"
    store = tmp_path / "s.duckdb"
    done = harness(
        "workers",
        "SIGKILL",
        "--store",
        store,
        "import",
        "--workers",
        "2",
        "--worker-processes",  # the native path's default workers are threads
        big,
        INTERRUPT_PIDS=str(pids),
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    below = [int(p) for p in pids.read_text().split()]
    assert len(below) >= 2  # the fork server and at least one worker
    try:
        assert wait_until(lambda: not any(alive(pid) for pid in below), 10), [
            (pid, Path(f"/proc/{pid}/cmdline").read_bytes()[:80]) for pid in below if alive(pid)
        ]
    finally:  # never leave them behind, even when the test fails
        for pid in filter(alive, below):
            os.kill(pid, signal.SIGKILL)
    with Database(store) as db:  # and the half-read source is undone
        assert db.sql("SELECT count(*) FROM core.spans").item() == 0
        assert db.pending_derivation() is None
