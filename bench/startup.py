"""How fast the command line answers: whole processes, as a user's shell starts them.

Each case runs ``REPEAT`` times in a fresh interpreter (``python -m valuechain …``, the
installed ``valuechain`` script does the same); the table gives the median and best wall time,
the median CPU time of the process, and each median against the bare interpreter's (the
floor: ``python -c pass``) and against the libraries every command needs (``click``,
``rich``). Goals (issue 41): any ``--help`` ≤ 0.3 s and ``runs`` on the demo store ≤ 0.8 s
wall on the 2-core machine the project runs on.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.table import Table

from bench.common import console, machine

REPEAT = 7
GOALS = {"--help": 0.3, "trial --help": 0.3, "serve --help": 0.3, "runs (demo store)": 0.8}


def _once(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=_env())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "80"}


def run(size_mb: int = 0) -> None:
    del size_mb  # fixed commands on the bundled sample
    python = [sys.executable]
    cli = [*python, "-m", "valuechain"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run([*cli, "demo"], cwd=folder, check=True, capture_output=True, env=_env())
        store = ["--store", "valuechain-demo.duckdb"]
        cases = {
            "python -c pass": [*python, "-c", "pass"],
            "import click, rich": [*python, "-c", "import click, rich.console, rich.text"],
            "--help": [*cli, "--help"],
            "trial --help": [*cli, "trial", "--help"],
            "serve --help": [*cli, "serve", "--help"],
            "runs (demo store)": [*cli, *store, "runs"],
            "funnel (demo store)": [*cli, *store, "funnel", _first_run(cli, store, folder)],
        }
        rows = []
        for name, command in cases.items():
            runs = [_once(command, folder) for _ in range(REPEAT)]
            walls = [w for w, _ in runs]
            rows.append(
                (name, statistics.median(walls), min(walls), statistics.median(c for _, c in runs))
            )
    floor, libraries = rows[0][1], rows[1][1]
    table = Table(title=f"command-line start-up — {machine()}", header_style="bold")
    for column in ("case", "wall (median)", "best", "CPU", "÷ python", "÷ click+rich", "goal"):
        table.add_column(column, justify="left" if column == "case" else "right")
    for name, median, best, cpu in rows:
        goal = GOALS.get(name)
        verdict = "" if goal is None else f"≤ {goal} s {'met' if median <= goal else 'MISSED'}"
        table.add_row(
            name,
            f"{median:.3f} s",
            f"{best:.3f} s",
            f"{cpu:.3f} s",
            f"{median / floor:.1f}",
            f"{median / libraries:.1f}",
            verdict,
        )
    console.print(table)


def _first_run(cli: list[str], store: list[str], folder: Path) -> str:
    done = subprocess.run(
        [*cli, *store, "-q", "runs", "--format", "csv"],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
        env=_env(),
    )
    return done.stdout.splitlines()[1].split(",")[0]
