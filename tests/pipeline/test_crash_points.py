"""SIGKILL at every point where an import or a recompute writes: mid-read, between committed
batches of one source, inside a source's commit, inside a derive batch's commit, between and
inside recompute batches. Each time the store opens, holds all or nothing of the interrupted
unit (a source; a derive or recompute batch), and running the command again reaches exactly
the store of an uninterrupted run.

Each kill is a real signal the process sends itself at one exact point
(``interrupt_harness.py``), so every run stops at the same place.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from interrupted import Dump, comparable, harness

from valuechain.store import Database
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export

# Batches this small cut the small first source into several (as 8 MiB does a large one), each
# committed when the next arrives (as a large source commits every ``COMMIT_ROWS`` rows).
SMALL_BATCHES = {"INTERRUPT_BATCH_BYTES": "16384", "INTERRUPT_COMMIT_ROWS": "1"}


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two sources holding three runs: the first several batches long, the second a few
    read chunks long."""
    folder = tmp_path_factory.mktemp("exports")
    first, second = folder / "first.jsonl", folder / "second.jsonl"
    write_export(first, SynthConfig(runs=2, cases=2, models=2, reps=2, seed=3), ndjson=True)
    write_export(second, SynthConfig(runs=1, cases=3, models=1, reps=2, seed=4), ndjson=True)
    assert first.stat().st_size > 3 * 16384 and second.stat().st_size > 16384
    assert first.stat().st_size != second.stat().st_size  # each read once ("read" cuts the first)
    return first, second


def _run(point: str, store: Path, *args: str | Path, commit_rows: str = "1") -> None:
    env = {**SMALL_BATCHES, "INTERRUPT_COMMIT_ROWS": commit_rows}
    done = harness(point, "SIGKILL", "--store", store, *args, **env)
    expected = 0 if point == "none" else -signal.SIGKILL
    assert done.returncode == expected, done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def imported(exports: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Dump:
    store = tmp_path_factory.mktemp("reference") / "imported.duckdb"
    _run("none", store, "import", "--workers", "0", *exports)
    return comparable(store)


def _ledger_and_spans(store: Path) -> tuple[list[str], int, int]:
    """Opened as the next command opens it (writable: an unfinished import is undone)."""
    with Database(store) as db:
        paths = [
            Path(p).name for (p,) in db.con.execute("SELECT path FROM core.sources").fetchall()
        ]
        spans = db.fetch_one("SELECT count(*) FROM core.spans")
        listed = db.fetch_one("SELECT coalesce(sum(span_rows), 0) FROM core.sources")
    assert spans is not None and listed is not None
    return sorted(paths), int(spans[0]), int(listed[0])


@pytest.mark.parametrize(
    ("point", "kept", "commit_rows"),
    [
        ("read", ["first.jsonl"], "1"),  # the second source is mid-read
        ("batch", [], "1"),  # two batches of the first committed, the source unfinished
        ("batch", [], "1000000"),  # two batches of the first gathered, nothing written yet
        ("commit", ["first.jsonl"], "1"),  # the second source written, not committed
        ("derive-commit", ["first.jsonl", "second.jsonl"], "1"),  # both sources, no chain
    ],
)
def test_an_import_killed_while_writing_keeps_whole_sources_and_resumes_exactly(
    point: str,
    kept: list[str],
    commit_rows: str,
    exports: tuple[Path, Path],
    imported: Dump,
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.duckdb"
    _run(point, store, "import", "--workers", "0", *exports, commit_rows=commit_rows)
    paths, spans, listed = _ledger_and_spans(store)
    assert paths == kept
    assert spans == listed  # every listed source whole, nothing of an unlisted one
    with Database(store, read_only=True) as db:  # a derive batch is all or nothing
        trials = db.fetch_one("SELECT count(*) FROM core.trials")
        assert trials is not None and trials[0] in (0, len(imported["trials"]))
    _run("none", store, "import", "--workers", "0", *exports)
    assert comparable(store) == _same_import_numbers(comparable(store), imported)


def _same_import_numbers(dump: Dump, reference: Dump) -> Dump:
    """The reference with the interrupted store's import numbers (``sources.import_id``): a
    source committed by the killed command keeps its number, the one after it the next."""
    numbers = {row[0]: row[1] for row in dump["sources"]}
    rows = [(r[0], numbers.get(r[0], r[1]), *r[2:]) for r in reference["sources"]]
    return {**reference, "sources": rows}


@pytest.fixture(scope="module")
def at_11(exports: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both sources derived with the previous analyzer: every run is stale for 12."""
    store = tmp_path_factory.mktemp("at11") / "at11.duckdb"
    _run("none", store, "import", "--workers", "0", "--analyzer", "11", *exports)
    return store


@pytest.fixture(scope="module")
def recomputed(at_11: Path, tmp_path_factory: pytest.TempPathFactory) -> Dump:
    store = tmp_path_factory.mktemp("recomputed") / "recomputed.duckdb"
    store.write_bytes(at_11.read_bytes())
    _run("none", store, "recompute")
    return comparable(store)


def _runs_at_12(store: Path) -> dict[str, tuple[int, int]]:
    """Per run: (trials, trials with a derived chain at analyzer 12)."""
    with Database(store, read_only=True) as db:
        rows = db.con.execute(
            "SELECT t.run_id, count(DISTINCT t.trial_id), count(DISTINCT c.trial_id) "
            "FROM core.trials t LEFT JOIN core.stage_chain c ON c.trial_id = t.trial_id "
            "AND c.source = 'derived' AND c.analyzer_version = 12 GROUP BY t.run_id"
        ).fetchall()
    return {run: (int(trials), int(at12)) for run, trials, at12 in rows}


@pytest.mark.parametrize(("point", "runs_done"), [("recompute-batch", 1), ("recompute-commit", 1)])
def test_a_recompute_killed_between_or_inside_batches_keeps_whole_runs_and_resumes_exactly(
    point: str, runs_done: int, at_11: Path, recomputed: Dump, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    store.write_bytes(at_11.read_bytes())
    _run(point, store, "recompute")
    runs = _runs_at_12(store)
    assert len(runs) == 3
    assert all(at12 in (0, trials) for trials, at12 in runs.values()), runs  # whole runs
    assert sum(at12 == trials for trials, at12 in runs.values()) == runs_done, runs
    _run("none", store, "recompute")
    assert comparable(store) == recomputed
