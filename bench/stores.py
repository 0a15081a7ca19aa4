"""Stores generated as tables, for the suites where an import would dominate the setup.

``build_evidence_store(path, n)``: one synthetic export of ``BASE_TRIALS`` trials (redacted,
10 runs) is imported without derivation, then its evidence tables (``core.spans``,
``core.resources``, ``core.scopes`` and their span/resource ``core.attributes``) are copied in
SQL with fresh trace, run and trial ids until the store holds ``n`` trials — no JSON decoded
past the first copy. Used by the ``derive`` and ``recompute`` suites.

``build_history_store(path, archive)``: the store of a ``valuechain synth --history`` archive
(``$BENCH_HISTORY`` names one for the ``trend`` and ``recompute`` suites), every file imported
as its manifest says, or without derivation for a suite that derives it itself.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.common import OUT, console
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export
from valuechain.synth.history_manifest import manifest_path, read_manifest

BASE_TRIALS = 10_000  # 10 runs x 25 cases x 4 models x 10 repetitions

# One copy of the base evidence: new trace ids (random, as real ones are: a hash of the id and the
# copy number, so no read can find a batch's spans by trace id ranges), row ids
# moved past every earlier copy, run and trial ids suffixed with the copy number.
_COPY_RESOURCES = """
INSERT INTO core.resources
SELECT resource_row + $copy * $resources, source_id, record_index, resource_index, schema_url,
       dropped_attributes_count, content_hash
FROM core.resources WHERE resource_row < $resources
"""
_COPY_SCOPES = """
INSERT INTO core.scopes
SELECT scope_row + $copy * $scopes, resource_row + $copy * $resources, name, version, schema_url,
       dropped_attributes_count, content_hash
FROM core.scopes WHERE scope_row < $scopes
"""
_COPY_SPANS = """
INSERT INTO core.spans
SELECT span_row + $copy * $spans, scope_row + $copy * $scopes, resource_row + $copy * $resources,
       source_id, record_index,
       unhex(md5(hex(trace_id) || '/' || $copy)), span_id, parent_span_id, trace_state, flags,
       name, kind, kind_name_raw, start_time_unix_nano, end_time_unix_nano, start_time, end_time,
       duration_ns, status_code, status_code_name_raw, status_message, dropped_attributes_count,
       dropped_events_count, dropped_links_count, oi_span_kind, mcp_app_role, content_hash,
       json_path, dup_group
FROM core.spans WHERE span_row < $spans
"""
_COPY_ATTRIBUTES = """
INSERT INTO core.attributes
SELECT owner_type,
       owner_row + $copy * CASE owner_type WHEN 'span' THEN $spans ELSE $resources END,
       ordinal, key, value_type,
       CASE WHEN key IN ('mcp.app.run.id', 'mcp.app.trial.id')
            THEN string_value || '_' || $copy ELSE string_value END,
       int_value, double_value, bool_value, bytes_value, json_value, large_value_ref
FROM core.attributes
WHERE owner_type = 'span' AND owner_row < $spans
   OR owner_type = 'resource' AND owner_row < $resources
"""


_SOURCES = "SELECT source_id FROM core.sources"


def base_export() -> Path:
    """A cached redacted NDJSON export of ``BASE_TRIALS`` trials in 10 runs."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"recompute-base-{BASE_TRIALS}-trials.jsonl"
    if not path.exists():
        config = SynthConfig(runs=10, cases=25, models=4, reps=10, seed=3, redacted=True)
        write_export(path, config, ndjson=True)
    return path


def build_evidence_store(path: Path, trials: int) -> Database:
    """``trials`` trials of evidence (spans only, nothing derived yet)."""
    start = time.perf_counter()
    for stale in (path, Path(f"{path}.wal")):
        stale.unlink(missing_ok=True)
    db = Database(path)
    assert import_paths(db, [base_export()], ImportOptions(derive=False)).ok
    counts = {
        name: db.con.execute(f"SELECT max({name[:-1]}_row) + 1 FROM core.{name}").fetchall()[0][0]
        for name in ("spans", "scopes", "resources")
    }
    copies = max(1, trials // BASE_TRIALS)
    for copy in range(1, copies):
        db.con.begin()
        for statement in (_COPY_RESOURCES, _COPY_SCOPES, _COPY_SPANS, _COPY_ATTRIBUTES):
            params = {k: v for k, v in {**counts, "copy": copy}.items() if f"${k}" in statement}
            db.con.execute(statement, params)
        db.con.commit()
    # The ledger lists every copied span under the one source, so the store opens again.
    db.con.execute("UPDATE core.sources SET span_rows = span_rows * $copies", {"copies": copies})
    # Nothing is pending: the suites derive every trace themselves (the copies were never
    # recorded as awaiting derivation, so the base source alone would be derived twice).
    db.clear_pending(source for (source,) in db.con.execute(_SOURCES).fetchall())
    traces = db.con.execute("SELECT count(DISTINCT trace_id) FROM core.spans").fetchall()[0][0]
    return built(db, f"{traces:,} traces ({copies} copies of {BASE_TRIALS:,} trials)", start)


def build_history_store(path: Path, archive: Path, *, derive: bool = True) -> Database:
    """A ``synth --history`` archive's store: each file at the analyzer its manifest names
    (``derive=False``: nothing derived nor pending, the suite derives every trace itself)."""
    start = time.perf_counter()
    for stale in (path, Path(f"{path}.wal")):
        stale.unlink(missing_ok=True)
    db, manifest = Database(path), read_manifest(archive)
    folder = manifest_path(archive).parent
    for file in manifest.files:
        options = ImportOptions(derive=derive, analyzer=file.analyzer)
        assert import_paths(db, [folder / file.path], options).ok
    if not derive:
        db.clear_pending(source for (source,) in db.con.execute(_SOURCES).fetchall())
    runs = len(manifest.runs)
    return built(db, f"history {archive}: {runs} runs over {manifest.weeks} weeks", start)


def built(db: Database, what: str, start: float) -> Database:
    """Checkpoint a generated store and say what it holds and how long it took."""
    db.con.execute("CHECKPOINT")
    console.print(f"store: {what}, built in {time.perf_counter() - start:.1f} s")
    return db
