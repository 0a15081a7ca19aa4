"""Derivation must never be the bottleneck: derive trials/s against the import and the analyzer.

Stores of 100k and 1M trials (``$BENCH_DERIVE_SIZES``) are generated as tables
(`bench.stores.build_evidence_store`: one 10k-trial export imported, its evidence copied in
SQL), so the import does not dominate the setup. Over each store we time:
- ``import``           the import (decode + commit, no derivation) of the 10k-trial export the
                       store was copied from, in trials/s — the import is linear in its export
- ``derive (step)``    ``valuechain derive`` over the whole store, as a process: load rows,
                       evidence, analyzer, write the tables, materialize; its peak RSS (the
                       whole process tree, workers included) is printed beside it
- ``evidence``         the evidence adapter alone over one default batch of stored rows
- ``analyzer``         the pure analyzer alone over that batch's inputs (one core)
and print trials/s with R_derive = derive ÷ import (bar ≥ 5, goal 10), derive ÷ analyzer
(bar ≥ 0.33) and the scaling from the smallest to the largest store (linear = 1.00; bar ≤ 1.2).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Timing, _process_tree, _rss_mb, console, report
from bench.stores import BASE_TRIALS, base_export, build_evidence_store
from valuechain.derive import derive_chains
from valuechain.evidence.frames import ordered_attributes
from valuechain.evidence.trials import build_trials
from valuechain.pipeline.derive import DEFAULT_BATCH_TRACES, run_batches
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

SIZES = tuple(int(n) for n in os.environ.get("BENCH_DERIVE_SIZES", "100000,1000000").split(","))


def import_rate(folder: Path) -> Timing:
    """The import of the base export (spans only) into a fresh store."""
    path = base_export()
    with Database(folder / "import.duckdb") as db:
        start = time.perf_counter()
        assert import_paths(db, [path], ImportOptions(derive=False)).ok
        seconds = time.perf_counter() - start
    return Timing("import", seconds, BASE_TRIALS / 1e6, BASE_TRIALS, "trials")


def parts(db: Database) -> tuple[float, float, int]:
    """(evidence s, analyzer s, trials) over the store's first default batch."""
    traces = run_batches(db.trace_runs(), DEFAULT_BATCH_TRACES)[0]
    spans, attributes = db.trial_rows(traces)
    sources = db.trial_sources(traces)
    start = time.perf_counter()
    evidence = build_trials(spans, ordered_attributes(attributes), source_runs=sources)
    evidence_s = time.perf_counter() - start
    inputs = [i for i in evidence.inputs if i is not None]
    start = time.perf_counter()
    derive_chains(inputs)
    return evidence_s, time.perf_counter() - start, len(traces)


def _cpu_s(pid: int) -> float:
    """utime + stime of one live process (Linux /proc), in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_usage(command: list[str], every: float = 0.1) -> tuple[int, int, float, float]:
    """Run ``command``; (peak summed RSS of its process tree MB, peak of the command's own
    process MB, wall s, CPU s of the whole tree). The workers are the forkserver's children,
    never reaped by us, so their CPU is sampled from /proc: the last figure seen per process,
    summed (a process's final tenth of a second may be missed)."""
    start = time.perf_counter()
    seen: dict[int, float] = {}
    with subprocess.Popen(command, stdout=subprocess.DEVNULL) as process:
        peak = peak_main = 0
        while process.poll() is None:
            tree = _process_tree(process.pid)
            peak = max(peak, sum(_rss_mb(p) for p in tree))
            peak_main = max(peak_main, _rss_mb(process.pid))
            for pid in tree:
                seen[pid] = max(seen.get(pid, 0.0), _cpu_s(pid))
            time.sleep(every)
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command)
    return peak, peak_main, time.perf_counter() - start, sum(seen.values())


def measure(trials: int, folder: Path, imported: Timing) -> list[Timing]:
    path = folder / f"derive-{trials}.duckdb"
    with build_evidence_store(path, trials) as db:
        n = len(db.trace_runs())
        evidence_s, analyzer_s, sample = parts(db)
    cli = Path(sys.executable).with_name("valuechain")  # the installed entry point
    command = [str(cli), "--store", str(path), "derive"]
    peak, main, step_s, cpu_s = tree_usage(command)
    console.print(
        f"{n:,} trials: derive peak RSS {peak:,} MB (whole tree; main process {main:,} MB); "
        f"{step_s:.1f} s wall, {cpu_s:.1f} s CPU (whole tree); load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    millions = n / 1e6
    timings = [
        imported,
        Timing(f"derive (step) @ {n:,}", step_s, millions, n, "trials"),
        Timing("evidence", evidence_s, sample / 1e6, sample, "trials"),
        Timing("analyzer", analyzer_s, sample / 1e6, sample, "trials"),
    ]
    for path_ in (path, Path(f"{path}.wal")):
        path_.unlink(missing_ok=True)
    return timings


def run(size_mb: int) -> list[Timing]:
    """Run the suite at every size of ``SIZES``. ``size_mb`` is ignored: sized in trials."""
    del size_mb
    found: list[list[Timing]] = []
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        imported = import_rate(Path(tmp))
        for trials in SIZES:
            timings = measure(trials, Path(tmp), imported)
            report(
                f"derive vs import ({trials:,} trials; 'MB' = million trials)",
                timings,
                baseline="import",
            )
            step, analyzer = timings[1], timings[3]
            console.print(
                f"R_derive = {step.items_per_s / imported.items_per_s:.1f} (bar >= 5, goal 10); "
                f"derive / analyzer = {step.items_per_s / analyzer.items_per_s:.2f} (bar >= 0.33)"
            )
            found.append(timings)
    if len(found) > 1:
        small, large = found[0][1], found[-1][1]
        scale = (large.seconds / small.seconds) / (large.items / small.items)
        console.print(
            f"scaling {small.items:,} -> {large.items:,} trials: {scale:.2f}x linear (bar <= 1.2)"
        )
    return [t for timings in found for t in timings]
