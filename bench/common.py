"""Shared helpers: cached synthetic inputs, timing, a side-by-side table with ratios."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

OUT = Path(__file__).resolve().parent / "out"
console = Console()


@dataclass(frozen=True, slots=True)
class Timing:
    name: str
    seconds: float
    megabytes: float
    items: int
    item_name: str = "spans"

    @property
    def mb_per_s(self) -> float:
        return self.megabytes / self.seconds

    @property
    def items_per_s(self) -> float:
        return self.items / self.seconds


def timed(
    name: str, fn: Callable[[], int], megabytes: float, *, repeat: int = 1, item_name: str = "spans"
) -> Timing:
    """Best wall time of ``repeat`` runs of ``fn`` (which returns the item count)."""
    best, items = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        items = fn()
        best = min(best, time.perf_counter() - start)
    return Timing(name, best, megabytes, items, item_name)


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(title: str, timings: list[Timing], baseline: str) -> None:
    """Print the timings side by side, each as a ratio to the named baseline."""
    base = next(t for t in timings if t.name == baseline)
    table = Table(title=f"{title} — {machine()}", header_style="bold")
    for column in ("case", "seconds", "MB/s", "items/s", f"÷ {baseline}"):
        table.add_column(column, justify="left" if column == "case" else "right")
    for t in timings:
        table.add_row(
            t.name,
            f"{t.seconds:.2f}",
            f"{t.mb_per_s:.1f}",
            f"{t.items_per_s:,.0f} {t.item_name}",
            f"{t.mb_per_s / base.mb_per_s:.3f}",
        )
    console.print(table)


def _process_tree(pid: int) -> list[int]:
    pids = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                for child in handle.read().split():
                    pids += _process_tree(int(child))
    except OSError:  # the process ended meanwhile
        pass
    return pids


def _rss_mb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def peak_tree_rss(command: list[str], every: float = 0.1) -> tuple[int, int, float]:
    """Run ``command``; (peak summed RSS of its whole process tree in MB, peak of the command's
    own process, seconds). Sampled from /proc every ``every`` seconds (Linux only): a worker's
    RSS counts as long as it lives, so the sum is what the machine had to hold at once."""
    start = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.DEVNULL) as process:
        peak = peak_main = 0
        while process.poll() is None:
            peak = max(peak, sum(_rss_mb(p) for p in _process_tree(process.pid)))
            peak_main = max(peak_main, _rss_mb(process.pid))
            time.sleep(every)
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command)
    return peak, peak_main, time.perf_counter() - start
