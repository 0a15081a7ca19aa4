"""Shared helpers: cached synthetic inputs, timing, a side-by-side table with ratios."""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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
    return _proc_mb(f"/proc/{pid}/status", "VmRSS:")


def _pss_mb(pid: int) -> int:
    """The process's proportional share of its pages (Linux): a page shared by n processes
    (the libraries a fork server's children map from it) counts 1/n in each, so a tree's PSS
    sum is what it holds, where its RSS sum counts every shared page once per process."""
    return _proc_mb(f"/proc/{pid}/smaps_rollup", "Pss:")


def _proc_mb(path: str, field: str) -> int:
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(field):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def _cpu_s(pid: int) -> float:
    """utime + stime of one live process (Linux /proc), in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TreeUsage(NamedTuple):
    """What a command's whole process tree used: peaks in MB, times in seconds."""

    peak_pss: int  # summed proportional set sizes: what the tree held at once
    peak_rss: int  # summed RSS: every page shared by n processes counted n times
    peak_main: int  # RSS of the command's own process
    wall: float
    cpu: float  # user + system, whole tree
    main_cpu: float


def tree_usage(command: list[str], every: float = 0.1) -> TreeUsage:
    """Run ``command`` and sample its process tree every ``every`` seconds (Linux /proc). The
    workers are the forkserver's children, never reaped by us, so their CPU is sampled too:
    the last figure seen per process, summed (a process's final tenth of a second may be
    missed)."""
    start = time.perf_counter()
    seen: dict[int, float] = {}
    with subprocess.Popen(command, stdout=subprocess.DEVNULL) as process:
        pss = rss = main = 0
        while process.poll() is None:
            tree = _process_tree(process.pid)
            pss = max(pss, sum(_pss_mb(p) for p in tree))
            rss = max(rss, sum(_rss_mb(p) for p in tree))
            main = max(main, _rss_mb(process.pid))
            for pid in tree:
                seen[pid] = max(seen.get(pid, 0.0), _cpu_s(pid))
            time.sleep(every)
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command)
    wall = time.perf_counter() - start
    return TreeUsage(pss, rss, main, wall, sum(seen.values()), seen.get(process.pid, 0.0))


def tree_cpu_seconds() -> float:
    """This process's CPU time, its finished children's, and its live children's with theirs.

    The derive step's workers are forked by multiprocessing's fork server, a child that lives
    as long as this process: they are its children, not ours, so ``RUSAGE_CHILDREN`` never
    sees them; the server's own counters do, once it has reaped them (``_live_children_cpu``).
    """
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime + _live_children_cpu()


def _live_children_cpu() -> float:
    """CPU seconds of this process's live children and of the children they reaped (Linux
    ``/proc/PID/stat``: utime, stime, cutime, cstime; 0 elsewhere), read until two reads
    agree, so a worker that just exited is counted once its parent has reaped it."""
    last = -1.0
    for _ in range(50):
        now = sum(_tree_ticks(pid) for pid in _children()) / os.sysconf("SC_CLK_TCK")
        if now == last:
            break
        last = now
        time.sleep(0.02)
    return max(last, 0.0)


def _children() -> list[int]:
    me = os.getpid()
    found = []
    for task in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = task.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == me:  # fields[1]: the parent's pid
                found.append(int(task.parent.name))
    return found


def _tree_ticks(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15])  # utime stime cutime cstime (clock ticks)
    return 0
