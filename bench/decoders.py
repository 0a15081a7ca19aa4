"""How fast the native JSON decoders we already depend on turn OTLP/JSON into typed data.

The question this answers: which native decoder should the import's decode be built on (issue
16: R_store ≥ 0.4, R_parse ≥ 0.3; see ``ingest``)? Each case decodes the same ≥ 200 MB synthetic
NDJSON export as the ``ingest`` suite, in the same run as the ceiling, and builds nothing that
the store would need beyond what it names — so each is an upper bound for an import built on it:

- ``simdjson ×2``        THE CEILING (as in ``ingest``): parse only, both cores
- ``msgspec typed ×2``   valuechain's msgspec Structs (the fast path's schema), both cores;
                         Python objects only, no Arrow columns, no store
- ``pyarrow.json``       Arrow's C++ NDJSON reader with the native path's explicit OTLP schema
                         (``ingest/otlp/native_text.py``), both threads and one: nested Arrow
                         columns, not yet flattened into the store's tables
- ``native decode``      what the import runs on one core: that reader, then Arrow compute into
                         the span tables with canonical hashes (``ingest/otlp/native.py``)
- ``msgspec decode``     the msgspec fast path with the reference fallback, one core
- ``duckdb read_json``   DuckDB's reader with the same structure given as column types
- ``… + unnest``         that reader with the OTLP structure spelled out (nested AnyValues as
                         JSON text), flattened into span rows and their attribute rows in
                         DuckDB (multi-threaded): the least an import built on it would do
- ``duckdb store floor`` the other half of an import: the export's tables, already decoded
                         (untimed), written into a fresh DuckDB file (plain CREATE TABLE AS, no
                         keys, no deduplication) and checkpointed — what storing alone costs
"""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.json as pa_json

from bench.common import console
from bench.ingest import MB, both_cores, simdjson_parse, store_floor, synthetic_ndjson
from bench.ingest_cpu import Measured, measure, table
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.otlp import native


def _duckdb_type(arrow: pa.DataType) -> str:
    if pa.types.is_struct(arrow):
        inner = ", ".join(f'"{f.name}" {_duckdb_type(f.type)}' for f in arrow)
        return f"STRUCT({inner})"
    if pa.types.is_list(arrow):
        return f"{_duckdb_type(arrow.value_type)}[]"
    return {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.bool_(): "BOOLEAN"}.get(
        arrow, "DOUBLE"
    )


# ---------------------------------------------------------------------------- cases
def msgspec_typed(path: str, part: int, parts: int) -> int:
    from valuechain.ingest.otlp.fast import _DECODER  # noqa: PLC0415

    lines = Path(path).read_bytes().splitlines()[part::parts]
    start = time.perf_counter()
    for line in lines:
        _DECODER.decode(line)
    return int((time.perf_counter() - start) * 1e9)


# DuckDB's reader with the OTLP structure as column types; nested AnyValues kept as JSON text
# (the exact AnyValue decoder would take those in bulk), times and intValue as text
_AV = (
    "STRUCT(stringValue VARCHAR, boolValue BOOLEAN, intValue VARCHAR, doubleValue DOUBLE, "
    "bytesValue VARCHAR, arrayValue JSON, kvlistValue JSON)"
)
_KVS = f"STRUCT(key VARCHAR, value {_AV})[]"
_EVENT = (
    f"STRUCT(timeUnixNano VARCHAR, name VARCHAR, attributes {_KVS}, droppedAttributesCount UBIGINT)"
)
_LINK = (
    f"STRUCT(traceId VARCHAR, spanId VARCHAR, traceState VARCHAR, flags UBIGINT, "
    f"attributes {_KVS}, droppedAttributesCount UBIGINT)"
)
_SPAN = (
    "STRUCT(traceId VARCHAR, spanId VARCHAR, parentSpanId VARCHAR, traceState VARCHAR, "
    "flags UBIGINT, name VARCHAR, kind UBIGINT, startTimeUnixNano VARCHAR, "
    f"endTimeUnixNano VARCHAR, attributes {_KVS}, droppedAttributesCount UBIGINT, "
    f"events {_EVENT}[], droppedEventsCount UBIGINT, links {_LINK}[], droppedLinksCount UBIGINT, "
    "status STRUCT(message VARCHAR, code UBIGINT))"
)
OTLP_COLUMNS = {
    "resourceSpans": (
        f"STRUCT(resource STRUCT(attributes {_KVS}, droppedAttributesCount UBIGINT), "
        "schemaUrl VARCHAR, scopeSpans STRUCT(scope STRUCT(name VARCHAR, version VARCHAR, "
        f"attributes {_KVS}, droppedAttributesCount UBIGINT), schemaUrl VARCHAR, "
        f"spans {_SPAN}[])[])[]"
    )
}
# the flattening an import built on it needs at the least: span rows, then their attribute
# rows with typed values (no ids as bytes, no checks, no canonical hashes, no resources)
_FLAT_SPANS = """
CREATE TEMP TABLE spans AS
WITH r AS (SELECT unnest(resourceSpans) AS rs FROM read_ndjson($path, columns = $columns,
                                                               maximum_object_size = 1000000000)),
     s AS (SELECT unnest(rs.scopeSpans) AS ss FROM r),
     p AS (SELECT unnest(ss.spans) AS sp FROM s)
SELECT unnest(sp) FROM p
"""
_FLAT_ATTRIBUTES = """
CREATE TEMP TABLE attributes AS
WITH a AS (SELECT rowid AS owner_row, generate_subscripts(attributes, 1) AS ordinal,
                  unnest(attributes) AS kv FROM spans)
SELECT owner_row, ordinal, kv.key, kv.value.stringValue AS string_value,
       TRY_CAST(kv.value.intValue AS BIGINT) AS int_value, kv.value.doubleValue AS double_value,
       kv.value.boolValue AS bool_value, from_base64(kv.value.bytesValue) AS bytes_value,
       coalesce(kv.value.arrayValue, kv.value.kvlistValue)::VARCHAR AS json_value
FROM a
"""


def run(size_mb: int = 200) -> list[Measured]:
    path = synthetic_ndjson(max(size_mb, 200))
    data = path.read_bytes()
    megabytes = len(data) / MB
    schema = native.SCHEMA

    def pyarrow_json(threads: bool = True) -> int:
        table = pa_json.read_json(
            pa.BufferReader(data),
            read_options=pa_json.ReadOptions(use_threads=threads, block_size=8 << 20),
            parse_options=pa_json.ParseOptions(
                explicit_schema=native.SCHEMA, unexpected_field_behavior="error"
            ),
        )
        return table.num_rows

    def decoding(native_path: bool) -> int:
        options = DecodeOptions(workers=0, native=native_path, native_parts=native_path)
        return decode_export(data, path.name, options).span_count

    def duckdb_read_json() -> int:
        columns = {"resourceSpans": _duckdb_type(schema.field("resourceSpans").type)}
        with duckdb.connect() as con:
            row = con.execute(
                "SELECT count(*) FROM read_json($path, format = 'newline_delimited', "
                "columns = $columns, maximum_object_size = 1000000000)",
                {"path": str(path), "columns": columns},
            ).fetchone()
        return int(row[0]) if row else 0

    def duckdb_flattened() -> int:
        with duckdb.connect() as con:
            con.execute(_FLAT_SPANS, {"path": str(path), "columns": OTLP_COLUMNS})
            con.execute(_FLAT_ATTRIBUTES)
            row = con.execute("SELECT count(*) FROM spans").fetchone()
        return int(row[0]) if row else 0

    decoded = decode_export(data, path.name, DecodeOptions(workers=0))
    records = data.count(b"\n")
    cases = [
        both_cores_measured("simdjson ×2 (ceiling)", simdjson_parse, path, megabytes, records),
        both_cores_measured("msgspec typed ×2", msgspec_typed, path, megabytes, records),
        measure("pyarrow.json (2 threads)", pyarrow_json, megabytes, item_name="records"),
        measure(
            "pyarrow.json (1 thread)", lambda: pyarrow_json(False), megabytes, item_name="records"
        ),
        measure("native decode (1 core)", lambda: decoding(True), megabytes),
        measure("msgspec decode (1 core)", lambda: decoding(False), megabytes),
        measure("duckdb read_json", duckdb_read_json, megabytes, item_name="records"),
        measure("duckdb read_json + unnest", duckdb_flattened, megabytes),
        store_floor(decoded, "duckdb store floor", megabytes),
    ]
    table(
        "native decoders, decode only (NDJSON, content included)",
        cases,
        baseline="simdjson ×2 (ceiling)",
    )
    console.print(
        "each decoder case is an upper bound for an import built on it: none of them writes the "
        "store's tables, and only msgspec checks every field the fast path checks; the store "
        "floor is an upper bound for any import into DuckDB tables of this shape"
    )
    return cases


def both_cores_measured(
    name: str, fn: object, path: Path, megabytes: float, records: int
) -> Measured:
    """Two processes each doing half the lines: wall is the slower one's, CPU both of theirs
    (and the pool's start-up)."""
    seconds: list[float] = []

    def halves() -> int:
        seconds.append(both_cores(fn, path))
        return records

    case = measure(name, halves, megabytes)
    return Measured(name, seconds[0], megabytes, records, "records", cpu=case.cpu, load=case.load)
