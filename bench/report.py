"""`valuechain report`: the HTML report against the floor of the queries it runs.

Two stores: the demo store (the bundled sample export, 2 runs) and a synthetic export of 50
runs (``synth --failures --verdict-policy``, 4 cases × 2 models × 2 repetitions each:
decided verdicts, failing reasons, coverage and one trend partition per run group).

Cases (best wall time of several rounds; CPU time is this process's user + sys, children
included, for the same best round):
- ``queries``   what the report reads, through the query layer alone (`gather`: each run's
                document, decision summary and coverage, the trend and the runs outside it) —
                the floor
- ``report``    `Store.report()`: the same reads, then the page rendered (the verb's work
                before the file is written)
The ratios ``report ÷ queries`` (wall, and CPU: the one to read on a loaded machine) are the
cost of building the page over reading its data.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from rich.table import Table

import valuechain
from bench.common import OUT, console, machine
from valuechain.cli.sample import sample_export_path
from valuechain.report.html.gather import gather, report_request
from valuechain.synth import SynthConfig, write_export

ROUNDS: Final = 5
SYNTH: Final = SynthConfig(
    runs=50, cases=4, models=2, reps=2, seed=5, failures=True, verdict_policy=True
)


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _best(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, cpu) seconds of the fastest of `ROUNDS` calls."""
    best = (float("inf"), 0.0)
    for _ in range(ROUNDS):
        wall, cpu = time.perf_counter(), _cpu()
        fn()
        best = min(best, (time.perf_counter() - wall, _cpu() - cpu))
    return best


def _synthetic_store(folder: Path) -> Path:
    OUT.mkdir(exist_ok=True)
    export = OUT / "report-50-runs.jsonl"
    if not export.exists():
        write_export(export, SYNTH, ndjson=True)
    path = folder / "fifty.duckdb"
    with valuechain.open(path) as store:
        assert store.import_paths([export]).ok
    return path


def _demo_store(folder: Path) -> Path:
    path = folder / "demo.duckdb"
    with valuechain.open(path) as store:
        assert store.import_paths([sample_export_path()]).ok
    return path


def run(size_mb: int) -> None:
    del size_mb  # the stores are fixed
    with tempfile.TemporaryDirectory() as tmp:
        stores = [("demo", _demo_store(Path(tmp))), ("50 runs", _synthetic_store(Path(tmp)))]
        load = os.getloadavg()
        table = Table(
            title=f"report — {machine()}, load average {load[0]:.1f} at start",
            header_style="bold",
        )
        columns = (
            "store",
            "runs",
            "case",
            "wall s",
            "cpu s",
            "kB",
            "wall ÷ queries",
            "cpu ÷ queries",
        )
        for column in columns:
            table.add_column(column, justify="left" if column in ("store", "case") else "right")
        request = report_request()  # every run, as `valuechain report` with no option
        for name, path in stores:
            with valuechain.open(path, read_only=True) as store:
                runs = store.runs().height
                floor = _best(lambda s=store: gather(s.db.con, request, store=s.path))
                page = store.report()
                built = _best(lambda s=store: s.report())
            size = f"{len(page.encode()) / 1000:,.0f}"
            table.add_row(
                name, str(runs), "queries", f"{floor[0]:.3f}", f"{floor[1]:.3f}", "", "1.00"
            )
            table.add_row(
                name, str(runs), "report", f"{built[0]:.3f}", f"{built[1]:.3f}", size,
                f"{built[0] / floor[0]:.2f}",
            )  # fmt: skip
        console.print(table)
        console.print(f"load average at the end: {os.getloadavg()[0]:.1f}")
