"""How the worker pools start their processes: from valuechain's modules, never the caller's script.

Used by the import's decode processes (`pipeline.decode_pool`) and the derive step's staging
workers (`pipeline.derive`). Both use the ``forkserver`` method — never ``fork``: the parent
holds DuckDB's threads. As ``spawn`` does, it prepares each new process from the parent's
``__main__``: the script's path (or, run with ``-m``, its module's name) goes along and the
worker runs that script again, as ``__mp_main__``, before its first task. A script without an
``if __name__ == "__main__":`` guard would open its store again in every worker and meet the
lock (the pool breaks); a script piped on stdin (``python - < s.py``) cannot even be found
(``'<stdin>'``). A library must not depend on its caller's guard, and the workers need nothing
of the caller's script: they run valuechain's own functions and initializers, pickled by
reference, in a fork of the fork server that has imported valuechain's modules already.

So each worker is launched while ``sys.modules["__main__"]`` is, for that moment, a bare
module (no ``__file__``, no ``__spec__``): the preparation data then names no main module.
It relies only on what ``multiprocessing`` reads to prepare a process (``__main__``'s
``__spec__`` and ``__file__``), not on how it launches one (checked on Python 3.11 to 3.13).
The swap is held under a lock while a worker is launched, by the thread that submits a pool's
first tasks (a ``ProcessPoolExecutor`` launches a worker a task until it has them all; only
with ``max_tasks_per_child``, which the pools leave unset, would its own thread launch more,
under the same lock). A launch takes some 20–35 ms, and the first of a process's lifetime also
waits for the fork server's preload (~1 s on a loaded machine): another thread of the caller's
that looks up ``__main__`` in that moment — to pickle a class of its script, say — sees the
bare module.
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.popen_forkserver import Popen

__all__ = ["worker_context"]

_NO_MAIN = types.ModuleType("__main__")  # no __file__, __spec__ None: nothing to run again
_SWAPPING = threading.Lock()


def worker_context(preload: Sequence[str]) -> BaseContext:
    """The ``multiprocessing`` context for a pool's ``mp_context``: ``forkserver``, its
    processes launched without the caller's main module; the fork server imports ``preload``
    once and every worker it forks starts with them (ignored if the server already runs)."""
    context = _WorkerContext()
    context.set_forkserver_preload(list(preload))
    return context


@contextmanager
def _main_hidden() -> Iterator[None]:
    with _SWAPPING:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = _NO_MAIN
        try:
            yield
        finally:
            if main is None:
                del sys.modules["__main__"]
            else:
                sys.modules["__main__"] = main


# multiprocessing's ForkServerProcess and ForkServerContext but for the launch; built on their
# bases, as those are, so that this module imports where there is no fork server (Windows)


class _WorkerProcess(BaseProcess):
    _start_method = "forkserver"

    @staticmethod
    def _Popen(process_obj: BaseProcess) -> Popen:  # noqa: N802 (multiprocessing's name)
        from multiprocessing.popen_forkserver import Popen  # noqa: PLC0415 (not on Windows)

        with _main_hidden():
            return Popen(process_obj)


class _WorkerContext(BaseContext):
    _name = "forkserver"
    Process = _WorkerProcess
