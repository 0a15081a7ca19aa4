"""The DDL of ``sql/schema/`` agrees with ``contract.tables`` for every table in ``core``.

A fresh store's ``information_schema.columns`` is held against ``STORED_TABLES``: column
names in order, the DuckDB type each Arrow type is stored as, and NOT NULL ⇔
``nullable=False``. A table the DDL creates without a declared schema (or the reverse) fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import zip_longest
from pathlib import Path

import pyarrow as pa
import pytest

from valuechain.contract.tables import JSON_METADATA, STORED_TABLES
from valuechain.store import Database

Column = tuple[str, str, bool]  # (name, DuckDB type, nullable)
SCHEMA_SQL = Path(__file__).resolve().parents[2] / "sql" / "schema"

# Arrow type → the DuckDB type the DDL stores it as, written out (not asked of DuckDB), so a
# change on either side shows here. Only the types the stored tables use.
_SCALARS: dict[pa.DataType, str] = {
    pa.bool_(): "BOOLEAN",
    pa.int8(): "TINYINT",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.uint32(): "UINTEGER",
    pa.uint64(): "UBIGINT",
    pa.float64(): "DOUBLE",
    pa.string(): "VARCHAR",
    pa.large_string(): "VARCHAR",
    pa.binary(): "BLOB",
    pa.large_binary(): "BLOB",
    # DuckDB's TIMESTAMPTZ keeps microseconds: Arrow's nanoseconds are truncated on insert
    # (the span tables keep the raw nanoseconds in their *_unix_nano columns).
    pa.timestamp("ns", tz="UTC"): "TIMESTAMP WITH TIME ZONE",
    # DuckDB reads HUGEINT into Arrow as decimal128(38, 0).
    pa.decimal128(38, 0): "HUGEINT",
}


def duckdb_type(field: pa.Field) -> str:
    """The DuckDB type name ``information_schema.columns.data_type`` gives for ``field``."""
    dtype = field.type
    if field.metadata == JSON_METADATA and dtype == pa.string():
        return "JSON"
    if pa.types.is_fixed_size_binary(dtype):  # ids and hashes: DuckDB has no fixed width
        return "BLOB"
    if pa.types.is_list(dtype):
        return f"{duckdb_type(dtype.value_field)}[]"
    if pa.types.is_struct(dtype):
        members = ", ".join(f"{f.name} {duckdb_type(f)}" for f in dtype)
        return f"STRUCT({members})"
    if dtype not in _SCALARS:
        raise AssertionError(f"no DuckDB type written for Arrow {dtype} (column {field.name})")
    return _SCALARS[dtype]


@pytest.fixture(scope="module")
def ddl() -> Iterator[dict[str, list[Column]]]:
    """Every ``core`` table of a fresh store → its columns, in ordinal order (views, which
    store nothing, are not tables)."""
    db = Database(":memory:")
    try:
        rows = db.con.execute(
            "SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'YES' "
            "FROM information_schema.columns c JOIN information_schema.tables t "
            "USING (table_schema, table_name) "
            "WHERE c.table_schema = 'core' AND t.table_type = 'BASE TABLE' "
            "ORDER BY c.table_name, c.ordinal_position"
        ).fetchall()
    finally:
        db.close()
    out: dict[str, list[Column]] = {}
    for table, column, dtype, nullable in rows:
        out.setdefault(table, []).append((column, dtype, nullable))
    yield out


def declared(schema: pa.Schema) -> list[Column]:
    return [(f.name, duckdb_type(f), f.nullable) for f in schema]


def test_every_core_table_has_a_schema(ddl: dict[str, list[Column]]) -> None:
    missing = sorted(ddl.keys() - STORED_TABLES.keys())
    stale = sorted(STORED_TABLES.keys() - ddl.keys())
    assert not missing, f"core tables without a schema in contract/tables/: {missing}"
    assert not stale, f"schemas in contract/tables/ STORED_TABLES with no core table: {stale}"


def test_schemas_are_listed_in_ddl_order() -> None:
    """``STORED_TABLES`` follows ``sql/schema/``, each file named for the table it creates."""
    created = []
    for path in sorted(SCHEMA_SQL.glob("*.sql")):
        found = re.search(r"CREATE TABLE IF NOT EXISTS core\.(\w+)", path.read_text("utf-8"))
        if found:
            assert path.name.endswith(f"_{found[1]}.sql"), (path.name, found[1])
            created.append(found[1])
    assert created == list(STORED_TABLES)


@pytest.mark.parametrize("table", list(STORED_TABLES))
def test_ddl_agrees_with_the_arrow_schema(table: str, ddl: dict[str, list[Column]]) -> None:
    stored, arrow = ddl.get(table, []), declared(STORED_TABLES[table])
    differ = [
        f"column {i}: DDL {s} ≠ Arrow {a}"
        for i, (s, a) in enumerate(zip_longest(stored, arrow))
        if s != a
    ]
    assert not differ, f"core.{table} (sql/schema vs contract/tables/): " + "; ".join(differ)


def test_duckdb_type_spells_nested_types() -> None:
    counted = pa.list_(pa.struct([("reason_index", pa.int8()), ("count", pa.int64())]))
    assert duckdb_type(pa.field("r", counted)) == "STRUCT(reason_index TINYINT, count BIGINT)[]"
    assert duckdb_type(pa.field("id", pa.binary(16))) == "BLOB"
    assert duckdb_type(pa.field("doc", pa.string(), metadata=JSON_METADATA)) == "JSON"
    with pytest.raises(AssertionError, match="no DuckDB type"):
        duckdb_type(pa.field("x", pa.float16()))
