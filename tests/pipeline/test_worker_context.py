"""A worker process never runs the caller's main script again (`pipeline.worker_context`).

In-process and quick: the test's ``__main__`` is, for the while, a stand-in for an unguarded
script. `test_unguarded_scripts` runs real scripts in every way a user runs them.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import types
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from pathlib import Path

import pytest

from valuechain.pipeline.worker_context import worker_context


def _unguarded_script(folder: Path) -> types.ModuleType:
    """A ``__main__`` as a script file makes it: run again, it appends a line to ran.txt."""
    script = folder / "script.py"
    ran = folder / "ran.txt"
    script.write_text(f"with open({str(ran)!r}, 'a') as log:\n    log.write('ran\\n')\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    return main


@pytest.mark.parametrize(
    ("context", "runs"),
    [
        pytest.param(worker_context([]), 0, id="worker-context"),
        pytest.param(multiprocessing.get_context("forkserver"), 1, id="plain-forkserver"),
    ],
)
def test_a_worker_runs_the_main_script_only_under_plain_forkserver(
    context: BaseContext, runs: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = _unguarded_script(tmp_path)
    monkeypatch.setitem(sys.modules, "__main__", main)
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        assert pool.submit(os.getpid).result() != os.getpid()  # a worker process did the task
    assert sys.modules["__main__"] is main  # put back after the launch
    ran = tmp_path / "ran.txt"
    assert (ran.read_text().count("ran") if ran.exists() else 0) == runs
