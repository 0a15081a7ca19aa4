"""Recompute on an analyzer upgrade vs the derive step that first wrote the chains.

A store of ``N`` trials is built once per size: one synthetic export of ``BASE_TRIALS`` trials
(redacted, 10 runs) is imported without derivation, then its evidence tables (``core.spans``,
``core.resources``, ``core.scopes`` and their span/resource ``core.attributes``) are copied in
SQL with fresh trace, run and trial ids until the store holds ``N`` trials — evidence generated
directly as tables, no JSON decoded past the first copy. Over it we time:
- ``derive+materialize @11``  the import's derive step over every trace at analyzer 11
                              (evidence → chains → documents; the baseline)
- ``recompute 11→12``         every trial is behind: re-derived at 12 beside the 11 chains,
                              batch by batch, each batch with its runs' documents
                              (goal ≤ 1.2× the baseline)
- ``recompute (no-op)``       nothing is stale: the staleness scan alone (goal < 1 % of a full
                              recompute)
and print each as trials/s with its ratio to the baseline, for every size (the scaling).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from bench.common import OUT, Timing, console, report
from valuechain.pipeline.derive import derive_traces
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.pipeline.recompute import recompute
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

BASE_TRIALS = 10_000  # 10 runs x 25 cases x 4 models x 10 repetitions
SIZES = tuple(int(n) for n in os.environ.get("BENCH_RECOMPUTE_SIZES", "100000,300000").split(","))

# One copy of the base evidence: new trace ids (the copy number in the first two bytes), row ids
# moved past every earlier copy, run and trial ids suffixed with the copy number.
_COPY_RESOURCES = """
INSERT INTO core.resources
SELECT resource_row + $copy * $resources, source_id, record_index, resource_index, schema_url,
       dropped_attributes_count
FROM core.resources WHERE resource_row < $resources
"""
_COPY_SCOPES = """
INSERT INTO core.scopes
SELECT scope_row + $copy * $scopes, resource_row + $copy * $resources, name, version, schema_url,
       dropped_attributes_count
FROM core.scopes WHERE scope_row < $scopes
"""
_COPY_SPANS = """
INSERT INTO core.spans
SELECT span_row + $copy * $spans, scope_row + $copy * $scopes, resource_row + $copy * $resources,
       source_id, record_index,
       unhex(printf('%04x', $copy)) || trace_id[3:], span_id, parent_span_id, trace_state, flags,
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


def base_export() -> Path:
    """A cached redacted NDJSON export of ``BASE_TRIALS`` trials in 10 runs."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"recompute-base-{BASE_TRIALS}-trials.jsonl"
    if not path.exists():
        config = SynthConfig(runs=10, cases=25, models=4, reps=10, seed=3, redacted=True)
        write_export(path, config, ndjson=True)
    return path


def build_store(path: Path, trials: int) -> Database:
    """``trials`` trials of evidence (spans only, nothing derived yet)."""
    start = time.perf_counter()
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
    db.con.execute("CHECKPOINT")
    traces = db.con.execute("SELECT count(DISTINCT trace_id) FROM core.spans").fetchall()[0][0]
    console.print(
        f"store: {traces:,} traces ({copies} copies of {BASE_TRIALS:,} trials), "
        f"built in {time.perf_counter() - start:.1f} s"
    )
    return db


def measure(trials: int, folder: Path) -> list[Timing]:
    with build_store(folder / f"recompute-{trials}.duckdb", trials) as db:
        start = time.perf_counter()
        first = derive_traces(db, None, analyzer=11)
        derive_s = time.perf_counter() - start
        start = time.perf_counter()
        full = recompute(db)
        full_s = time.perf_counter() - start
        start = time.perf_counter()
        noop = recompute(db)
        noop_s = time.perf_counter() - start
    assert full.trials == first.trials and noop.nothing_stale
    n = first.trials
    return [
        Timing(f"derive+materialize @11 ({n:,})", derive_s, n / 1e6, n, "trials"),
        Timing(f"recompute 11→12 ({n:,})", full_s, n / 1e6, n, "trials"),
        Timing(f"recompute no-op ({n:,})", noop_s, n / 1e6, n, "trials"),
    ]


def run(size_mb: int) -> list[Timing]:
    """Run the suite at every size of ``SIZES`` (``$BENCH_RECOMPUTE_SIZES``, comma-separated
    trial counts). ``size_mb`` is ignored: the stores are sized in trials."""
    del size_mb
    timings: list[Timing] = []
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        for trials in SIZES:
            found = measure(trials, Path(tmp))
            report(
                f"recompute vs derive ({trials:,} trials; 'MB' = million trials)",
                found,
                baseline=found[0].name,
            )
            derive, full, noop = (t.seconds for t in found)
            console.print(
                f"{trials:,} trials: full recompute = {full / derive:.2f}x derive+materialize "
                f"(goal <= 1.2); no-op = {100 * noop / full:.2f} % of a full recompute "
                "(goal < 1 %)"
            )
            timings += found
    return timings
