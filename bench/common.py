"""Shared helpers: cached synthetic inputs, timing, a side-by-side table with ratios."""

from __future__ import annotations

import os
import platform
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
