"""Run one file of ``sql/query`` with the parameters it names: as a polars frame, or as rows.

The query layer's reads kept in ``sql/query`` (STYLE.md habit 6) run through these two.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import duckdb

from valuechain.errors import StoreError
from valuechain.store.sqlfiles import statement

if TYPE_CHECKING:  # loaded by the first frame asked for: `query_rows` needs only DuckDB
    import polars as pl


def query_frame(
    con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """The result of ``sql/<name>`` as a polars frame (column types as DuckDB's Arrow gives)."""
    import polars as pl

    sql = statement(name)
    relation = con.sql(sql.text, params=sql.bind(params or {}) or None)
    frame = pl.from_arrow(relation.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def query_rows(
    con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The rows of ``sql/<name>``, each a dict keyed by column name."""
    sql = statement(name)
    cursor = con.execute(sql.text, sql.bind(params or {}))
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def view_frame(
    con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, Any], views: str
) -> pl.DataFrame:
    """`query_frame` over public views; a store whose views predate this valuechain (``views``
    is missing) is a `StoreError` saying how to bring them up to date."""
    try:
        return query_frame(con, name, params)
    except duckdb.CatalogException as exc:
        raise StoreError(
            "the store's views",
            f"{views} missing: the store was last opened for writing by an older valuechain",
            "run any command that writes to the store once (e.g. valuechain materialize)",
        ) from exc
