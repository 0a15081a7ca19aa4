"""Recompute on an analyzer upgrade vs the derive step that first wrote the chains.

A store of ``N`` trials is built once per size: one synthetic export of 10,000 trials
(redacted, 10 runs) is imported without derivation, then its spans and their attributes
(``core.spans``, ``core.attributes``; resources and scopes are shared) are copied in SQL with
fresh trace, run and trial ids until the store holds ``N`` trials — evidence generated directly
as tables, no JSON decoded past the first copy. Over it we time:
- ``derive+materialize @11``  the import's derive step over every trace at analyzer 11
                              (evidence → chains → documents; the baseline)
- ``recompute 11→12``         every trial is behind: re-derived at 12 beside the 11 chains,
                              batch by batch, each batch (of whole runs, staged in the
                              derive step's chunks) committed with its runs' documents
                              (goal ≤ 1.2× the baseline)
- ``recompute (no-op)``       nothing is stale: the staleness scan alone (goal < 1 % of a full
                              recompute)
and print each with its wall and CPU time (every thread of this process and of the derive step's
worker processes; robust to a shared machine, so the CPU ratio is the one to quote), its ratio
to the baseline, and this process's own peak RSS (the mark is reset before each step), for every
size, then one line per size (the scaling) with the load average before and after it.
``$BENCH_HISTORY`` (a ``valuechain synth --history`` folder) measures that archive's
store instead, imported without derivation, as the one size.
"""

from __future__ import annotations

import contextlib
import os
import resource
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.common import Timing, machine, tree_cpu_seconds
from bench.stores import build_evidence_store, build_history_store
from valuechain.pipeline.derive import DeriveSummary, derive_traces
from valuechain.pipeline.recompute import RecomputeResult, recompute
from valuechain.store import Database
from valuechain.synth.history_manifest import read_manifest

console = Console(width=160)  # the ratio lines stay whole in a log
SIZES = tuple(int(n) for n in os.environ.get("BENCH_RECOMPUTE_SIZES", "100000,300000").split(","))
HISTORY = os.environ.get("BENCH_HISTORY")  # an archive's folder: its store is the one size


@dataclass(frozen=True, slots=True)
class Phase:
    """One timed step: wall and CPU seconds (every thread), and its own peak RSS."""

    name: str
    wall: float
    cpu: float
    peak_mb: int


def timed_phase(name: str, fn: Callable[[], object]) -> tuple[Phase, object]:
    """Run ``fn`` with the process's peak-RSS mark reset first (Linux: /proc/self/clear_refs),
    so the peak is this step's own, not the store build's before it."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    wall, cpu = time.perf_counter(), tree_cpu_seconds()
    result = fn()
    return Phase(name, time.perf_counter() - wall, tree_cpu_seconds() - cpu, _peak_mb()), result


def _peak_mb() -> int:
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _store(folder: Path, trials: int) -> Database:
    if HISTORY:
        return build_history_store(folder / "recompute-history.duckdb", Path(HISTORY), derive=False)
    return build_evidence_store(folder / f"recompute-{trials}.duckdb", trials)


def measure(trials: int, folder: Path) -> list[Phase]:
    with _store(folder, trials) as db:
        derive, first = timed_phase(
            "derive+materialize @11", lambda: derive_traces(db, None, analyzer=11)
        )
        full, result = timed_phase("recompute 11→12", lambda: recompute(db))
        noop, again = timed_phase("recompute no-op", lambda: recompute(db))
    assert isinstance(first, DeriveSummary) and isinstance(result, RecomputeResult)
    assert isinstance(again, RecomputeResult)
    assert result.trials == first.trials and again.nothing_stale
    return [derive, full, noop]


# (header, cell) of the per-size table: a step, the size in trials, the baseline step.
_COLUMNS: tuple[tuple[str, Callable[[Phase, int, Phase], str]], ...] = (
    ("step", lambda p, n, base: p.name),
    ("wall s", lambda p, n, base: f"{p.wall:.2f}"),
    ("trials/s", lambda p, n, base: f"{n / p.wall:,.0f}"),
    ("÷ derive (wall)", lambda p, n, base: f"{p.wall / base.wall:.3f}"),
    ("CPU s", lambda p, n, base: f"{p.cpu:.2f}"),
    ("÷ derive (CPU)", lambda p, n, base: f"{p.cpu / base.cpu:.3f}"),
    ("peak RSS MB", lambda p, n, base: f"{p.peak_mb:,}"),
)


def _table(trials: int, phases: list[Phase]) -> Table:
    title = f"recompute vs derive, {trials:,} trials — {machine()}"
    table = Table(title=title, header_style="bold")
    for header, _ in _COLUMNS:
        table.add_column(header, justify="left" if header == "step" else "right")
    for phase in phases:
        table.add_row(*(cell(phase, trials, phases[0]) for _, cell in _COLUMNS))
    return table


def run(size_mb: int) -> list[Timing]:
    """Run the suite at every size of ``SIZES`` (``$BENCH_RECOMPUTE_SIZES``, comma-separated
    trial counts). ``size_mb`` is ignored: the stores are sized in trials."""
    del size_mb
    timings: list[Timing] = []
    summary: list[str] = []
    with tempfile.TemporaryDirectory(prefix="valuechain-bench-") as tmp:
        # an archive has its own size: every trial of it
        sizes = (sum(r.trials for r in read_manifest(HISTORY).runs),) if HISTORY else SIZES
        for trials in sizes:
            load = os.getloadavg()[0]
            phases = measure(trials, Path(tmp))
            console.print(_table(trials, phases))
            derive, full, noop = phases
            line = (
                f"{trials:>9,} trials: full recompute = {full.cpu / derive.cpu:.2f}x "
                f"derive+materialize CPU ({full.wall / derive.wall:.2f}x wall; goal <= 1.2), "
                f"no-op = {100 * noop.cpu / full.cpu:.3f} % of a full recompute's CPU "
                f"({100 * noop.wall / full.wall:.3f} % wall; goal < 1 %), "
                f"peak RSS {max(p.peak_mb for p in phases):,} MB, "
                f"load average {load:.1f} → {os.getloadavg()[0]:.1f}"
            )
            console.print(line, soft_wrap=True)
            summary.append(line)
            timings += [Timing(p.name, p.wall, trials / 1e6, trials, "trials") for p in phases]
    console.print("scaling:", *summary, sep="\n")
    return timings
