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
- ``duckdb store floor`` the other half of an import: the export's tables, already decoded
                         (untimed), written into a fresh DuckDB file (plain CREATE TABLE AS, no
                         keys, no deduplication) and checkpointed — what storing alone costs
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.json as pa_json

from bench.common import Timing, console, report, timed
from bench.ingest import MB, both_cores, simdjson_parse, synthetic_ndjson
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


def run(size_mb: int = 200) -> list[Timing]:
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
        options = DecodeOptions(workers=0, native=native_path)
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

    decoded = decode_export(data, path.name, DecodeOptions(workers=0)).tables

    def duckdb_store_floor() -> int:
        with tempfile.TemporaryDirectory() as tmp, duckdb.connect(f"{tmp}/floor.duckdb") as con:
            for name, table in decoded.items():
                con.register("decoded", table)
                con.execute(f"CREATE TABLE {name} AS SELECT * FROM decoded")
                con.unregister("decoded")
            con.execute("CHECKPOINT")
        return decoded["spans"].num_rows

    records = data.count(b"\n")
    timings = [
        Timing(
            "simdjson ×2 (ceiling)", both_cores(simdjson_parse, path), megabytes, records, "records"
        ),
        Timing("msgspec typed ×2", both_cores(msgspec_typed, path), megabytes, records, "records"),
        timed("pyarrow.json (2 threads)", pyarrow_json, megabytes, item_name="records"),
        timed(
            "pyarrow.json (1 thread)", lambda: pyarrow_json(False), megabytes, item_name="records"
        ),
        timed("native decode (1 core)", lambda: decoding(True), megabytes),
        timed("msgspec decode (1 core)", lambda: decoding(False), megabytes),
        timed("duckdb read_json", duckdb_read_json, megabytes, item_name="records"),
        timed("duckdb store floor", duckdb_store_floor, megabytes),
    ]
    report(
        "native decoders, decode only (NDJSON, content included)",
        timings,
        baseline="simdjson ×2 (ceiling)",
    )
    console.print(
        "each decoder case is an upper bound for an import built on it: none of them writes the "
        "store's tables, and only msgspec checks every field the fast path checks; the store "
        "floor is an upper bound for any import into DuckDB tables of this shape"
    )
    return timings
