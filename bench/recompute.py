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

from bench.common import Timing, console, report
from bench.stores import build_evidence_store as build_store
from valuechain.pipeline.derive import derive_traces
from valuechain.pipeline.recompute import recompute

SIZES = tuple(int(n) for n in os.environ.get("BENCH_RECOMPUTE_SIZES", "100000,300000").split(","))


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
