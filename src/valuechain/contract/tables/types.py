"""The Arrow column types several stored tables share, and the two schema helpers.

Shared so an id, a hash or a timestamp has one Arrow type in every table that holds it
(TRACE-FORMAT §6), and the store's DDL one DuckDB type for it (``sql/schema/``).
``table_schema`` declares a schema as data, one ``(name, type, nullable)`` per column;
``conform()`` validates a table against its schema, because Arrow does not check
``nullable=False`` on construction.
"""

from __future__ import annotations

from typing import Final

import pyarrow as pa

TRACE_ID_BYTES: Final = 16
SPAN_ID_BYTES: Final = 8
TRACE_ID = pa.binary(TRACE_ID_BYTES)
SPAN_ID = pa.binary(SPAN_ID_BYTES)
SHA256 = pa.binary(32)
# Nanoseconds in Arrow; DuckDB's TIMESTAMPTZ keeps microseconds, so the store truncates them
# (the span tables keep the raw nanoseconds beside, in `*_unix_nano`).
TS = pa.timestamp("ns", tz="UTC")
SOURCE_ID = pa.int32()  # core.sources.source_id: INTEGER
# DuckDB's HUGEINT (what `sum` of BIGINTs gives) as Arrow reads it.
HUGEINT = pa.decimal128(38, 0)
INT64_MAX: Final = (1 << 63) - 1  # the largest value of an int64 column

# A string column holding JSON text (DDL type JSON): Arrow's canonical JSON extension, named
# in the field's metadata so pyarrow < 19 (no `pa.json_()`) reads it as a plain string.
JSON_METADATA: Final = {b"ARROW:extension:name": b"arrow.json"}


def table_schema(*fields: tuple[str, pa.DataType, bool] | pa.Field) -> pa.Schema:
    """A schema of ``(name, type, nullable)`` columns (or ready-made fields), in order."""
    return pa.schema(
        [f if isinstance(f, pa.Field) else pa.field(f[0], f[1], nullable=f[2]) for f in fields]
    )


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Cast ``table`` to ``schema`` and enforce non-nullable columns.

    Raises:
        ValueError: naming the column when a non-nullable column holds nulls.
    """
    table = table.select(schema.names).cast(schema)
    for fld in schema:
        if not fld.nullable and table.column(fld.name).null_count:
            raise ValueError(f"column {fld.name!r} is declared non-nullable but holds nulls")
    return table
