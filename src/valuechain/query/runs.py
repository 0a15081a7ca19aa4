"""The run listing (view ``runs``): run-level facts and the default document's figures.

A listing is a trend series, never an aggregate: nothing here sums across runs (seed 001,
population rule 7). Analytics columns are NULL for a run without a document at the current
analyzer (derived chains): that run is UNMEASURED there (CONTRACT §5.10), not zero. What the
store holds besides runs (plain traces that are no eval run, TRACE-FORMAT §3.8) and how much
of a run it holds (TRACE-FORMAT §5.2 `W_RUN_INCOMPLETE_IN_EXPORT`) are read here too, so every
reader can say so instead of showing an empty or silently partial table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

from valuechain.query.statements import query_frame, query_rows

if TYPE_CHECKING:  # `run_rows` and the counts need no engine but DuckDB
    import polars as pl

_RUNS = "query/runs.sql"  # the listing, as a frame or as rows


@dataclass(frozen=True, slots=True)
class StoreContents:
    """What the store holds: traces and span rows kept, runs, and how many are eval runs."""

    traces: int
    spans: int
    runs: int
    eval_runs: int

    @property
    def has_eval_run(self) -> bool:
        return self.eval_runs > 0


@dataclass(frozen=True, slots=True)
class RunCompleteness:
    """How much of one run the store holds; ``expected`` None when the run states no count."""

    run_id: str
    eval_run: bool
    in_store: int
    expected: int | None
    missing: int | None
    pending: int
    skipped: int
    document_blocker: str | None

    @property
    def incomplete(self) -> bool:
        return bool(self.missing)


def runs_frame(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per run, oldest completion first (runs without one last), then by run id,
    with the analyzer versions it has documents for and whether recompute would touch it."""
    return query_frame(con, _RUNS)


def run_rows(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """`runs_frame` as Python rows: a listing for the terminal loads no DataFrame engine."""
    return query_rows(con, _RUNS)


def store_contents(con: duckdb.DuckDBPyConnection) -> StoreContents:
    """Counts of what the store holds (one cheap pass over spans and trials)."""
    (row,) = query_rows(con, "query/store_contents.sql")
    return StoreContents(
        int(row["traces"]), int(row["spans"]), int(row["runs"]), int(row["eval_runs"])
    )


def run_completeness(con: duckdb.DuckDBPyConnection, run_id: str) -> RunCompleteness | None:
    """``run_id``'s trials in the store against its expected count; None for an unknown run."""
    rows = query_rows(con, "query/run_completeness.sql", {"run_id": run_id})
    if not rows:
        return None
    r = rows[0]
    return RunCompleteness(
        run_id=str(r["run_id"]),
        eval_run=bool(r["eval_run"]),
        in_store=int(r["trials_in_store"]),
        expected=None if r["trials_expected"] is None else int(r["trials_expected"]),
        missing=None if r["trials_missing"] is None else int(r["trials_missing"]),
        pending=int(r["trials_pending"]),
        skipped=int(r["trials_skipped"]),
        document_blocker=r["document_blocker"],
    )


def document_blocker(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """Why ``run_id`` has no default document (e.g. ``suiteIdMissing``); None when nothing
    blocks it or the run is unknown."""
    rows = query_rows(con, "query/document_blocker.sql", {"run_id": run_id})
    return str(rows[0]["document_blocker"]) if rows and rows[0]["document_blocker"] else None
