"""What the store's spans are: counts per role (view ``spans``)."""

from __future__ import annotations

import duckdb
import polars as pl

from valuechain.query.statements import query_frame


def spans_by_role(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Spans and traces per role (mcp.app.role, else OpenInference kind, else other)."""
    return query_frame(con, "query/spans_by_role.sql")
