"""Run ``valuechain ARGS…`` and send the process a real signal at one exact point of an import.

    python interrupt_harness.py POINT SIGNAL ARGS…

A signal sent from outside lands wherever the process happens to be; sent from inside, at a
hook wrapped around the point, it lands exactly there on every run, while the code under test
stays the one the command line runs (nothing in valuechain knows about this file). Points:

- ``derive``: every source is committed, the first derive batch is about to start;
- ``derive-batch``: one derive batch is committed (batches of one run, each written on its
  own), the next not yet;
- ``materialize``: every chain is written, the analytics documents are not;
- ``workers``: decode workers are running (``$INTERRUPT_PIDS`` records them);
- ``read``: the second source is being read and decoded (its one read: no stored source has its
  size): its first chunk is read, the next one not yet (the first source is committed);
- ``batch``: two batches of the first source are committed, the third not yet written (the
  source is not finished: its in-progress mark is set);
- ``commit``: every row of the second source is written in its transaction, the commit not
  yet done;
- ``derive-commit``: the first derive batch's rows and documents are written in its
  transaction, the commit not yet done;
- ``recompute-batch``: a recompute in batches of one run has committed its first batch, the
  second not yet started;
- ``recompute-commit``: the same recompute has written its second batch in the transaction,
  the commit not yet done.

- ``operation-log``: a ``store`` operation has done its work and is about to log it: inside
  the transaction of ``delete`` / ``purge-content`` (not committed), in the copy of
  ``vacuum`` and of ``migrate`` (not swapped in);
- ``vacuum-copy``: ``store vacuum`` is writing its copy (the work file has its first bytes);
- ``migrate-copy``: ``store migrate`` has copied the store beside itself, the migration
  scripts have not run on the copy;
- ``swap``: the new file of ``vacuum`` or ``migrate`` is complete, not yet renamed over the
  store; ``swapped``: just renamed over it, the command not yet finished.

``$INTERRUPT_BATCH_BYTES`` makes the import's batches that small (several batches from a small
source, as a multi-gigabyte source has at the default size); ``$INTERRUPT_COMMIT_ROWS`` sets
how many rows a transaction gathers before it commits (``writer.COMMIT_ROWS``; 1: a commit per
batch, as a multi-gigabyte source commits a group of batches).

- ``export-table``: ``export`` has written its first table into its staging folder, the next
  one not yet.

With ``$INTERRUPT_PIDS``, the ids of every process below this one are written to that file
just before the signal (they are no longer this process's descendants after its death).
``$INTERRUPT_GROUP`` sends the signal to the whole process group, as a terminal's Ctrl-C does
(the decode and staging workers get it too); run the harness in a session of its own then.

``none`` interrupts nothing (the reference run of the same command with the same settings).
SIGINT raises KeyboardInterrupt there (Ctrl-C); SIGKILL and SIGHUP end the process at once.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from valuechain.cli import main
from valuechain.ingest import decode
from valuechain.pipeline import derive, export, imports, recompute
from valuechain.store import Database, database, maintenance, migrate, sqlfiles, writer


def _interrupt(sig: signal.Signals) -> None:
    if os.environ.get("INTERRUPT_PIDS"):  # who is below this process now
        Path(os.environ["INTERRUPT_PIDS"]).write_text(" ".join(map(str, descendants(os.getpid()))))
    if os.environ.get("INTERRUPT_GROUP"):  # as a terminal's Ctrl-C: every process of the group
        os.killpg(os.getpgid(0), sig)
    else:
        os.kill(os.getpid(), sig)


def _before_call(
    owner: Any, name: str, nth: int, action: Callable[[], None], *, after: bool = False
) -> None:
    """Run ``action`` just before the ``nth`` call (1-based) of ``owner.name`` (``after``: just
    after it returned)."""
    original = getattr(owner, name)
    calls = 0

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == nth and not after:
            action()
        result = original(*args, **kwargs)
        if calls == nth and after:
            action()
        return result

    setattr(owner, name, wrapper)


def _on_nth_call(
    owner: Any, name: str, nth: int, wanted: Callable[..., bool]
) -> Callable[[Callable[[], None]], None]:
    """``_before_call`` counting only the calls whose arguments ``wanted`` accepts."""

    def install_action(action: Callable[[], None]) -> None:
        original = getattr(owner, name)
        calls = 0

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            if wanted(*args, **kwargs):
                calls += 1
                if calls == nth:
                    action()
            return original(*args, **kwargs)

        setattr(owner, name, wrapper)

    return install_action


def _mid_read(nth_file: int, action: Callable[[], None]) -> None:
    """Run ``action`` when the read of the ``nth_file`` source asks for its second chunk (new
    bytes of a size no stored source has are read once, hashed as they are decoded)."""
    original = imports.file_chunks
    reads: dict[str, int] = {}

    def chunks(path: Any, *args: Any, **kwargs: Any) -> Any:
        reads[str(path)] = reads.get(str(path), 0) + 1
        cut = len(reads) == nth_file and reads[str(path)] == 1
        for n, chunk in enumerate(original(path, *args, **kwargs)):
            if n == 1 and cut:
                action()
            yield chunk
        if cut:  # a one-chunk file: cut before its end is seen
            action()

    imports.file_chunks = chunks  # type: ignore[assignment]


def _inside_transaction(nth: int, action: Callable[[], None]) -> None:
    """Run ``action`` in the ``nth`` derive or recompute transaction (``Database._write``),
    after everything it writes and before its commit."""
    original = Database._write
    calls = 0

    def write(self: Database, statements: Any, params: Any, then: Any) -> None:
        nonlocal calls
        calls += 1

        def then_cut(con: Any) -> object:
            result = then(con) if then is not None else None
            if calls == nth:
                action()
            return result

        original(self, statements, params, then_cut)

    Database._write = write  # type: ignore[method-assign]


def _when_work_file_written(action: Callable[[], None]) -> None:
    """Run ``action`` (from a watching thread) as soon as a vacuum's work file has bytes."""
    original = maintenance.work_file

    def watch(work: Path) -> None:
        while not (work.exists() and work.stat().st_size > 0):
            time.sleep(0.0005)
        action()

    @contextlib.contextmanager
    def watched(path: Path, *args: Any, **kwargs: Any) -> Any:
        with original(path, *args, **kwargs) as work:
            threading.Thread(target=watch, args=(work,), daemon=True).start()
            yield work

    maintenance.work_file = watched  # type: ignore[assignment]


def _one_run_per_batch(module: Any) -> None:
    cut = module.run_batches
    module.run_batches = lambda trace_runs, _max, **kw: cut(trace_runs, 1, **kw)


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
    if sig is signal.SIGHUP:  # a hangup ends the process, even when run under nohup (SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    interrupt = functools.partial(_interrupt, sig)
    if point == "none":  # the same command and settings, uninterrupted: the reference
        pass
    elif point == "derive":
        _before_call(derive, "_derive_batch", 1, interrupt)
    elif point == "derive-batch":
        _one_run_per_batch(derive)
        derive.WRITE_ROWS = 1  # each batch written and committed on its own
        _before_call(derive, "_derive_batch", 2, interrupt)
    elif point == "materialize":
        _before_call(derive, "materialize_runs", 1, interrupt)
    elif point == "workers":
        _before_call(writer.SourceWriter, "gather", 2, interrupt)  # records $INTERRUPT_PIDS
    elif point == "read":
        _mid_read(2, interrupt)
    elif point == "batch":
        _before_call(writer.SourceWriter, "gather", 3, interrupt)
    elif point == "commit":
        closing = _on_nth_call(sqlfiles, "statement", 2, lambda n: n == writer.ISSUE_COUNTS)
        closing(interrupt)
    elif point == "derive-commit":
        _inside_transaction(1, interrupt)
    elif point == "recompute-batch":
        _one_run_per_batch(recompute)
        _before_call(recompute, "write_batch", 2, interrupt)
    elif point == "recompute-commit":
        _one_run_per_batch(recompute)
        _inside_transaction(2, interrupt)
    elif point == "export-table":  # one table of the export written, the next not yet
        _before_call(export, "_copy", 2, interrupt)
    elif point == "operation-log":
        _before_call(database, "log_operation", 1, interrupt)  # delete, purge, vacuum
        _before_call(maintenance, "log_operation", 1, interrupt)  # migrate
    elif point == "vacuum-copy":
        _when_work_file_written(interrupt)
        # the watcher is a thread: under load it may wake late, never after the swap
        _before_call(maintenance, "replace_durably", 1, lambda: time.sleep(600))
    elif point == "migrate-copy":  # the copy's migration, not the opens that create a store
        older = lambda _con, stored: stored is not None and stored < migrate.STORE_SCHEMA_VERSION  # noqa: E731
        _on_nth_call(migrate, "create", 1, older)(interrupt)
    elif point == "swap":
        _before_call(maintenance, "replace_durably", 1, interrupt)
        _before_call(migrate, "replace_durably", 1, interrupt)
    elif point == "swapped":
        _before_call(maintenance, "replace_durably", 1, interrupt, after=True)
        _before_call(migrate, "replace_durably", 1, interrupt, after=True)
    else:
        raise SystemExit(f"unknown point {point!r}")
    if os.environ.get("INTERRUPT_BATCH_BYTES"):
        size = int(os.environ["INTERRUPT_BATCH_BYTES"])
        # the verbs read DecodeOptions from ingest.decode when they run
        small = functools.partial(decode.DecodeOptions, batch_bytes=size)
        decode.DecodeOptions = small  # type: ignore[misc]
    if os.environ.get("INTERRUPT_COMMIT_ROWS"):
        writer.COMMIT_ROWS = int(os.environ["INTERRUPT_COMMIT_ROWS"])


if __name__ == "__main__":
    install(sys.argv[1], signal.Signals[sys.argv[2]])
    main(sys.argv[3:], prog_name="valuechain")
