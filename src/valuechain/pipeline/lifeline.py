"""Worker processes that exit with the process that started them, however it ends.

Each worker's initializer watches the read end of a pipe whose only write end the parent
holds; the kernel closes it when the parent dies (SIGKILL included), and the worker exits.
Used by the import's decode workers and the derive step's staging workers.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
from multiprocessing.connection import Connection


def exit_with_parent(lifeline: Connection, folder: str | None = None) -> None:
    """A worker's initializer: exit the moment the process that started it is gone, first
    removing ``folder`` (files the parent handed over and can no longer remove itself).

    Ctrl-C is left to the parent: a terminal sends it to every process of the command, and a
    worker stopped by it would print its own traceback; the parent, stopped, shuts the
    workers down (or, gone, ends them through the lifeline)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_wait_for_eof, args=(lifeline, folder), daemon=True).start()


def _wait_for_eof(lifeline: Connection, folder: str | None) -> None:
    with contextlib.suppress(EOFError, OSError):
        lifeline.recv_bytes()  # nothing is ever sent: this returns only at EOF
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)  # every worker tries: whoever comes first
    os._exit(1)  # the parent died: its results have no reader
