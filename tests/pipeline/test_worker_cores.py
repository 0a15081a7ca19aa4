"""Each staging worker keeps to a core of its own (`pipeline.worker_cores`)."""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from valuechain.pipeline.worker_cores import one_core_each

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity"), reason="processes are pinned only where Linux pins"
)


def _cores_after_a_while() -> tuple[int, frozenset[int]]:
    time.sleep(0.2)  # so that a task in flight keeps its worker busy for the others
    return os.getpid(), frozenset(os.sched_getaffinity(0))


def _worker_cores(workers: int, counted_as: int) -> dict[int, frozenset[int]]:
    """pid → allowed cores of each worker of a pool whose initializer is `one_core_each`
    (told there are ``counted_as`` workers), once every worker has run a task."""
    context = multiprocessing.get_context("forkserver")
    claimed = context.Value("i", 0)
    seen: dict[int, frozenset[int]] = {}
    deadline = time.monotonic() + 60  # a loaded machine may start a worker late
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=one_core_each, initargs=(claimed, counted_as)
    ) as pool:
        while len(seen) < workers and time.monotonic() < deadline:
            tasks = [pool.submit(_cores_after_a_while) for _ in range(workers)]
            seen.update(task.result() for task in tasks)
    return seen


def test_each_worker_keeps_to_a_core_of_its_own() -> None:
    cores = frozenset(os.sched_getaffinity(0))
    workers = min(len(cores), 2)
    seen = _worker_cores(workers, workers)
    assert len(seen) == workers  # every worker took a task
    if len(cores) == 1:  # one core: nothing to choose
        assert list(seen.values()) == [cores]
        return
    assert all(len(allowed) == 1 and allowed <= cores for allowed in seen.values())
    assert len(set(seen.values())) == workers  # never two on the same core


def test_workers_stay_free_to_move_when_cores_are_fewer() -> None:
    cores = frozenset(os.sched_getaffinity(0))
    seen = _worker_cores(1, len(cores) + 1)
    assert list(seen.values()) == [cores]
