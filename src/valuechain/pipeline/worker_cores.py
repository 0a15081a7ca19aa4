"""One core each for the derive step's staging workers.

Each of the evidence adapter's ~350 small polars queries a batch crosses from the worker's
Python thread to its one polars thread (`pipeline.worker_threads`) and back: a filter of a
thousand rows is two context switches, ~0.1 ms. On two cores that is a wake-up of a thread on
the other core every time; with both threads on one core it is a plain switch. So each worker
keeps to a core of its own. The adapter alone, over 1,000-trace batches of a 100k-trial store:
167–174 CPU µs a trial on one core, 193–247 free to move. A whole 100k-trial derive, twelve
runs each in turn: 27.25 s wall and 42.25 CPU s (medians) against 28.35 s and 43.05, at the
same peak memory. At 1M trials the main process bounds the step more than the workers do:
one run each, 285.2 s against 297.5; the bench, an hour apart, 280.5 against 281.6.
"""

from __future__ import annotations

import os
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized

from valuechain.pipeline.lifeline import exit_with_parent


def start_staging_worker(
    lifeline: Connection, folder: str, claimed: Synchronized[int], workers: int
) -> None:
    """A staging worker's initializer: exit with the parent (`exit_with_parent`), and keep
    to a core of its own (`one_core_each`)."""
    exit_with_parent(lifeline, folder)
    one_core_each(claimed, workers)


def one_core_each(claimed: Synchronized[int], workers: int) -> None:
    """Keep this process to one of the cores it may use: the ``claimed``-th (a counter the
    pool's ``workers`` share) after an offset its parent's pid gives (the fork server's, one
    per derive process), so that two derives at once on a larger machine seldom pin to the
    same cores. The threads this process starts later (polars') inherit it. Nothing changes
    where a process cannot be pinned (not Linux) or where there are fewer cores than workers
    (sharing them is then the scheduler's job)."""
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < workers:
        return
    with claimed.get_lock():
        index = claimed.value
        claimed.value += 1
    os.sched_setaffinity(0, {cores[(os.getppid() + index) % len(cores)]})
