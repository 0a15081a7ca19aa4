"""CPU time beside wall time for the ingest suites: the machine is shared, so wall time alone
says as much about the neighbours as about the code.

``measure`` runs a function and returns its wall seconds and the CPU seconds (user + system)
of this process — every thread, DuckDB's and Arrow's included — plus those of every process
below it (decode workers, a fork server, a child process), sampled from ``/proc`` while it
runs. A descendant's last ``SAMPLE_EVERY`` seconds before it exits can be missed; workers live
for the whole import, so that is a few hundredths of a second against several seconds. Linux
only: elsewhere only this process's own CPU time counts.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from bench.common import Timing, console, machine

SAMPLE_EVERY = 0.05  # seconds between samples of the descendants' CPU time
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True, slots=True)
class Measured(Timing):
    """A ``Timing`` (wall seconds) with the CPU seconds it took and the load when it ran."""

    cpu: float = float("nan")
    load: float = float("nan")  # the 1-minute load average at the end of the case

    @property
    def mb_per_cpu_s(self) -> float:
        return self.megabytes / self.cpu if self.cpu > 0 else float("nan")


def load_average() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    proc = Path(f"/proc/{pid}/task")
    try:
        tasks = list(proc.iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            out += [child, *_descendants(child)]
    return out


def _cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime (fields 14, 15)


class _Sampler(threading.Thread):
    """Keeps each descendant's CPU time when first and last seen."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stop = threading.Event()
        self.sample(before=True)  # those alive before the case (a fork server) count from now

    def sample(self, before: bool = False) -> None:
        for pid in _descendants(os.getpid()):
            cpu = _cpu_of(pid)
            if cpu is not None:
                self.first.setdefault(pid, cpu if before else 0.0)
                self.last[pid] = cpu

    def run(self) -> None:
        while not self.stop.wait(SAMPLE_EVERY):
            self.sample()

    def total(self) -> float:
        return sum(cpu - self.first[pid] for pid, cpu in self.last.items())


def measure(
    name: str, fn: Callable[[], int], megabytes: float, item_name: str = "spans"
) -> Measured:
    """Wall and CPU seconds of ``fn()`` (which returns the item count)."""
    sampler = _Sampler()
    sampler.start()
    cpu0, wall0 = _own_cpu(), time.perf_counter()
    items = fn()
    wall, cpu = time.perf_counter() - wall0, _own_cpu() - cpu0
    sampler.stop.set()
    sampler.join()
    sampler.sample()
    cpu += sampler.total()
    return Measured(name, wall, megabytes, items, item_name, cpu=cpu, load=load_average())


def table(title: str, cases: list[Measured], baseline: str) -> None:
    """The cases side by side, each as a ratio to ``baseline`` by wall and by CPU time."""
    base = next(c for c in cases if c.name == baseline)
    out = Table(title=f"{title} — {machine()}", header_style="bold")
    for column in ("case", "wall s", "CPU s", "MB/s", "MB/CPU-s", "÷ base", "÷ base CPU", "load"):
        out.add_column(column, justify="left" if column == "case" else "right")
    for c in cases:
        out.add_row(
            c.name,
            f"{c.seconds:.2f}",
            f"{c.cpu:.2f}",
            f"{c.mb_per_s:.1f}",
            f"{c.mb_per_cpu_s:.1f}",
            f"{c.mb_per_s / base.mb_per_s:.3f}",
            f"{c.mb_per_cpu_s / base.mb_per_cpu_s:.3f}",
            f"{c.load:.1f}",
        )
    console.print(out)
    console.print(f"÷ base: MB/s over {baseline}'s; ÷ base CPU: MB per CPU-second over its")
