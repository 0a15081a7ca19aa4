"""Run ``valuechain ARGS…`` and send the process a real signal at one exact point of an import.

    python interrupt_harness.py POINT SIGNAL ARGS…

A signal sent from outside lands wherever the process happens to be; sent from inside, at a
hook wrapped around the point, it lands exactly there on every run, while the code under test
stays the one the command line runs (nothing in valuechain knows about this file). Points:

- ``derive``: every source is committed, the first derive batch is about to start;
- ``derive-batch``: one derive batch is committed (batches of one trace), the next not yet;
- ``materialize``: every chain is written, the analytics documents are not;
- ``workers``: decode workers are running; the ids of every process below this one are
  written to ``$INTERRUPT_PIDS`` first (they are no longer this process's descendants after
  its death).

SIGINT raises KeyboardInterrupt there (Ctrl-C); SIGKILL and SIGHUP end the process at once.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from valuechain.cli import main
from valuechain.pipeline import derive
from valuechain.store import writer


def _interrupt(sig: signal.Signals) -> None:
    os.kill(os.getpid(), sig)


def _before_call(owner: Any, name: str, nth: int, action: Callable[[], None]) -> None:
    """Run ``action`` just before the ``nth`` call (1-based) of ``owner.name``."""
    original = getattr(owner, name)
    calls = 0

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == nth:
            action()
        return original(*args, **kwargs)

    setattr(owner, name, wrapper)


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found: list[int] = []
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found.extend(children)
        frontier.extend(children)
    return sorted(found)


def install(point: str, sig: signal.Signals) -> None:
    interrupt = functools.partial(_interrupt, sig)
    if point == "derive":
        _before_call(derive, "_derive_batch", 1, interrupt)
    elif point == "derive-batch":
        cut = derive.run_batches
        derive.run_batches = lambda trace_runs, _max, **kw: cut(trace_runs, 1, **kw)  # type: ignore[assignment]
        _before_call(derive, "_derive_batch", 2, interrupt)
    elif point == "materialize":
        _before_call(derive, "materialize_runs", 1, interrupt)
    elif point == "workers":

        def record_then_interrupt() -> None:
            Path(os.environ["INTERRUPT_PIDS"]).write_text(
                " ".join(map(str, descendants(os.getpid())))
            )
            interrupt()

        _before_call(writer.SourceWriter, "add", 2, record_then_interrupt)
    else:
        raise SystemExit(f"unknown point {point!r}")


if __name__ == "__main__":
    install(sys.argv[1], signal.Signals[sys.argv[2]])
    main(sys.argv[3:], prog_name="valuechain")
