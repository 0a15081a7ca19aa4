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
    time.sleep(0.5)  # long enough for every worker of the pool to take one task
    return os.getpid(), frozenset(os.sched_getaffinity(0))


def _worker_cores(workers: int, counted_as: int) -> dict[int, frozenset[int]]:
    """pid → allowed cores of each worker of a pool whose initializer is `one_core_each`
    (told there are ``counted_as`` workers)."""
    context = multiprocessing.get_context("forkserver")
    claimed = context.Value("i", 0)
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=one_core_each, initargs=(claimed, counted_as)
    ) as pool:
        return dict(f.result() for f in [pool.submit(_cores_after_a_while) for _ in range(workers)])


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
