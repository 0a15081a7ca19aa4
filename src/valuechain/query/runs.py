"""The run listing (view ``runs``): run-level facts and the default document's figures.

A listing is a trend series, never an aggregate: nothing here sums across runs (seed 001,
population rule 7). Analytics columns are NULL for a run without a document at the current
analyzer (derived chains): that run is UNMEASURED there (CONTRACT §5.10), not zero.
"""

from __future__ import annotations

import duckdb
import polars as pl


def runs_frame(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per run, oldest completion first (runs without one last), then by run id."""
    relation = con.sql("SELECT * FROM main.runs ORDER BY completed_at ASC NULLS LAST, run_id")
    frame = pl.from_arrow(relation.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame
