"""Opening a store: the cost of the open-time ledger check, against a bare DuckDB open.

The store holds ``SPANS`` spans over ``SOURCES`` ledger rows, generated directly as DuckDB rows
(one small import, its spans copied). Cases:
- ``duckdb connect``      ``duckdb.connect`` + one tiny query + close (the floor)
- ``open (read-only)``    ``Database(read_only=True)``: sandbox, version, interrupted import,
                          ledger check
- ``ledger check``        the check alone, the common (consistent) case: two counts
- ``ledger mismatch``     the check when the totals differ: the per-source comparison
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb

from bench.common import console, report, timed
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.store.consistency import ledger_mismatches

SPANS = 5_000_000
SOURCES = 1_000

_COPY_SPANS = """
INSERT INTO core.spans
SELECT s.* REPLACE (span_row + k * 1000 AS span_row, (k % $sources) + 1 AS source_id)
FROM core.spans AS s, range(1, $copies) AS c(k)
"""
_LEDGER = """
INSERT INTO core.sources
SELECT l.* REPLACE (k + 1 AS source_id, 'copy-' || k || '.json' AS path, md5(k::VARCHAR) AS sha256)
FROM core.sources AS l, range(1, $sources) AS c(k)
"""
_RECOUNT = """
UPDATE core.sources AS l SET span_rows = s.n
FROM (SELECT source_id, count(*) AS n FROM core.spans GROUP BY source_id) AS s
WHERE s.source_id = l.source_id
"""


def _store(folder: Path) -> tuple[Path, int]:
    export = folder / "a.json"
    spans = [
        {"traceId": f"{t:032x}", "spanId": f"{n:016x}", "name": "s"}
        for t in range(1, 11)
        for n in range(1, 101)
    ]
    export.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    path = folder / "s.duckdb"
    with Database(path) as db:
        assert import_paths(db, [export], ImportOptions(derive=False)).ok
        # bench only: rows written behind the verbs, then the ledger made to agree
        db.con.execute(_COPY_SPANS, {"copies": SPANS // 1000, "sources": SOURCES})
        db.con.execute(_LEDGER, {"sources": SOURCES})
        db.con.execute(_RECOUNT)
        row = db.fetch_one("SELECT count(*) FROM core.spans")
    assert row is not None
    return path, int(row[0])


def run(size_mb: int = 0) -> None:
    del size_mb  # the store is sized in spans
    with tempfile.TemporaryDirectory() as tmp:
        path, spans = _store(Path(tmp))
        mb = path.stat().st_size / 2**20
        console.print(f"store: {spans:,} spans, {SOURCES} sources, {mb:.0f} MB")

        def bare() -> int:
            with duckdb.connect(str(path), read_only=True) as con:
                con.execute("SELECT 1").fetchall()
            return spans

        def opened() -> int:
            Database(path, read_only=True).close()
            return spans

        timings = [timed("duckdb connect", bare, mb, repeat=5)]
        timings.append(timed("open (read-only)", opened, mb, repeat=5))
        with duckdb.connect(str(path)) as con:

            def check() -> int:
                assert ledger_mismatches(con) == []
                return spans

            timings.append(timed("ledger check", check, mb, repeat=5))
            con.execute("DELETE FROM core.spans WHERE source_id = 1")

            def mismatch() -> int:
                assert ledger_mismatches(con)
                return spans

            timings.append(timed("ledger mismatch", mismatch, mb, repeat=5))
        report("opening a store", timings, "duckdb connect")
