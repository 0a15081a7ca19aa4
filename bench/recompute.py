"""Recompute on an analyzer upgrade vs the derive step that first wrote the chains.

A store of ``N`` trials is built once per size: one synthetic export of ``BASE_TRIALS`` trials
(redacted, 10 runs) is imported without derivation, then its spans and their attributes
(``core.spans``, ``core.attributes``; resources and scopes are shared) are copied in SQL with
fresh trace, run and trial ids until the store holds ``N`` trials — evidence generated directly
as tables, no JSON decoded past the first copy. Over it we time:
- ``derive+materialize @11``  the import's derive step over every trace at analyzer 11
                              (evidence → chains → documents; the baseline)
- ``recompute 11→12``         every trial is behind: re-derived at 12 beside the 11 chains,
                              batch by batch, each batch with its runs' documents
                              (goal ≤ 1.2× the baseline)
- ``recompute (no-op)``       nothing is stale: the staleness scan alone (goal < 1 % of a full
                              recompute)
and print each with its wall and CPU time (every thread; robust to a shared machine), its ratio
to the baseline, and its own peak RSS (the mark is reset before each step), for every size, then
one line per size (the scaling).
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

from bench.common import OUT, Timing, machine
from valuechain.pipeline.derive import DeriveSummary, derive_traces
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.pipeline.recompute import RecomputeResult, recompute
from valuechain.store import Database
from valuechain.synth import SynthConfig, write_export

console = Console(width=160)  # the ratio lines stay whole in a log
BASE_TRIALS = 10_000  # 10 runs x 25 cases x 4 models x 10 repetitions
SIZES = tuple(int(n) for n in os.environ.get("BENCH_RECOMPUTE_SIZES", "100000,300000").split(","))

# One copy of the base evidence: new trace ids (a hash of the id and the copy number), span
# rows moved past every earlier copy, run and trial ids suffixed with the copy number. Resources
# and scopes are shared with the original, as an import stores an identical resource once.
# `* REPLACE` keeps the copy right when a table gains a column.
_COPY_SPANS = """
INSERT INTO core.spans
SELECT * REPLACE (span_row + $copy * $spans AS span_row,
                  unhex(md5(hex(trace_id) || '/' || $copy)) AS trace_id)
FROM core.spans WHERE span_row < $spans
"""
_COPY_ATTRIBUTES = """
INSERT INTO core.attributes
SELECT * REPLACE (owner_row + $copy * $spans AS owner_row,
                  CASE WHEN key IN ('mcp.app.run.id', 'mcp.app.trial.id')
                       THEN string_value || '_' || $copy ELSE string_value END AS string_value)
FROM core.attributes
WHERE owner_type = 'span' AND owner_row < $spans
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
    spans = db.con.execute("SELECT max(span_row) + 1 FROM core.spans").fetchall()[0][0]
    copies = max(1, trials // BASE_TRIALS)
    for copy in range(1, copies):
        db.con.begin()
        for statement in (_COPY_SPANS, _COPY_ATTRIBUTES):
            db.con.execute(statement, {"spans": spans, "copy": copy})
        db.con.commit()
    db.con.execute("CHECKPOINT")
    traces = db.con.execute("SELECT count(DISTINCT trace_id) FROM core.spans").fetchall()[0][0]
    console.print(
        f"store: {traces:,} traces ({copies} copies of {BASE_TRIALS:,} trials), "
        f"built in {time.perf_counter() - start:.1f} s"
    )
    return db


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
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return Phase(name, time.perf_counter() - wall, time.process_time() - cpu, _peak_mb()), result


def _peak_mb() -> int:
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def measure(trials: int, folder: Path) -> list[Phase]:
    with build_store(folder / f"recompute-{trials}.duckdb", trials) as db:
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
        for trials in SIZES:
            phases = measure(trials, Path(tmp))
            console.print(_table(trials, phases))
            derive, full, noop = phases
            line = (
                f"{trials:>9,} trials: full recompute = {full.wall / derive.wall:.2f}x "
                f"derive+materialize wall ({full.cpu / derive.cpu:.2f}x CPU; goal <= 1.2), "
                f"no-op = {100 * noop.wall / full.wall:.3f} % of a full recompute (goal < 1 %), "
                f"peak RSS {max(p.peak_mb for p in phases):,} MB"
            )
            console.print(line)
            summary.append(line)
            timings += [Timing(p.name, p.wall, trials / 1e6, trials, "trials") for p in phases]
    console.print("scaling:", *summary, sep="\n")
    return timings
