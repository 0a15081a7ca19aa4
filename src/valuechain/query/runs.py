"""The run listing (view ``runs``): run-level facts and the default document's figures.

A listing is a trend series, never an aggregate: nothing here sums across runs (seed 001,
population rule 7). Analytics columns are NULL for a run without a document at the current
analyzer (derived chains): that run is UNMEASURED there (CONTRACT §5.10), not zero.
"""

from __future__ import annotations

import duckdb
import polars as pl

from valuechain.query.statements import query_frame, query_rows


def runs_frame(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per run, oldest completion first (runs without one last), then by run id."""
    relation = con.sql("SELECT * FROM main.runs ORDER BY completed_at ASC NULLS LAST, run_id")
    frame = pl.from_arrow(relation.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    # which analyzer versions the run has documents for, and whether recompute would touch it
    analyzers = query_frame(con, "query/run_analyzers.sql")
    return frame.join(analyzers, on="run_id", how="left", maintain_order="left")


def document_blocker(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """Why ``run_id`` has no default document (e.g. ``suiteIdMissing``); None when nothing
    blocks it or the run is unknown."""
    rows = query_rows(con, "query/document_blocker.sql", {"run_id": run_id})
    return str(rows[0]["document_blocker"]) if rows and rows[0]["document_blocker"] else None
