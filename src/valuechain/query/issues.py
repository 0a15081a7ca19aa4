"""The issue log of imported sources (view ``issues``), filtered as the ``issues`` verb asks."""

from __future__ import annotations

import duckdb
import polars as pl

from valuechain.query.statements import query_frame


def issues_frame(
    con: duckdb.DuckDBPyConnection,
    *,
    code: str | None = None,
    severity: str | None = None,
    source: str | None = None,
) -> pl.DataFrame:
    """Every issue matching the filters given (None keeps all), in source and record order."""
    return query_frame(
        con, "query/issues.sql", {"code": code, "severity": severity, "source": source}
    )
