"""Derivation must never be the bottleneck: derive trials/s ÷ whole-import trials/s (goal ≥ 5).

One synthetic export of ``trials`` trials (redacted, so a 100k-trial export stays around a
gigabyte) is imported once without derivation; then, over the same stored spans, we time:
- ``import``          decode + commit of the export (spans only), trials/s of the export
- ``derive (step)``   the whole derive step: load rows, evidence, analyzer, write the tables
- ``evidence``        the evidence adapter alone (span rows → derivation inputs)
- ``analyzer``        the pure analyzer alone (inputs → chains)
and print each as trials/s with its ratio to ``import``.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.common import OUT, Timing, console, report
from valuechain.derive import derive_chains
from valuechain.evidence.frames import ordered_attributes
from valuechain.evidence.trials import build_trials
from valuechain.pipeline.derive import derive_traces
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

MB = 1 << 20


def synthetic_trials(trials: int) -> Path:
    """A cached redacted NDJSON export with about ``trials`` trials."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"synth-{trials}-trials-redacted.jsonl"
    if not path.exists():
        cases, models = 25, 4
        reps = max(1, trials // (cases * models * 10))
        write_export(
            path,
            SynthConfig(runs=10, cases=cases, models=models, reps=reps, seed=3, redacted=True),
            ndjson=True,
        )
    return path


def run(size_mb: int, trials: int = 100_000) -> list[Timing]:
    del size_mb  # this suite is sized in trials
    path = synthetic_trials(trials)
    megabytes = path.stat().st_size / MB
    store = OUT / "derive-bench.duckdb"
    for stale in (store, Path(f"{store}.wal")):
        stale.unlink(missing_ok=True)
    with Database(store) as db:
        start = time.perf_counter()
        import_paths(db, [path], ImportOptions(derive=False))
        import_s = time.perf_counter() - start
        traces = sorted({trace for trace, _ in db.trace_runs()})
        n = len(traces)
        console.print(f"input: {path.name}, {megabytes:.0f} MB, {n} trials")

        start = time.perf_counter()
        spans, attributes = db.trial_rows(traces)
        attributes = ordered_attributes(attributes)
        sources = db.trial_sources(traces)
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        evidence = build_trials(spans, attributes, source_runs=sources)
        evidence_s = time.perf_counter() - start
        inputs = [i for i in evidence.inputs if i is not None]
        start = time.perf_counter()
        derive_chains(inputs)
        analyzer_s = time.perf_counter() - start
        start = time.perf_counter()
        derive_traces(db, None)
        step_s = time.perf_counter() - start
    timings = [
        Timing("import", import_s, megabytes, n, "trials"),
        Timing("derive (step)", step_s, megabytes, n, "trials"),
        Timing("load rows", load_s, megabytes, n, "trials"),
        Timing("evidence", evidence_s, megabytes, n, "trials"),
        Timing("analyzer", analyzer_s, megabytes, n, "trials"),
    ]
    report("derive vs import (same export)", timings, baseline="import")
    return timings
