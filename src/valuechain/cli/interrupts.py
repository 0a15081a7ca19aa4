"""Ctrl-C, the same for every command: the work stops at once, one line says what was kept and
what was undone, and the exit code is 130 (128 + SIGINT, as a shell reports it).

Python hears Ctrl-C only between its own steps, so a query running in DuckDB's C++ would hold
it off until the query ends — a runaway one, forever. `CtrlC` therefore watches for the signal
from a thread of its own (Python writes every signal it catches to a "wakeup" socket, from
the signal handler itself) and stops every store query at once (`interrupt_all`); the
command's main thread then unwinds as usual — the transaction under way rolled back, the
store closed — to the boundary (`app.Boundary`), which prints the line.

The line says what the pipeline knows (an `Interrupted` it raised: how many files an import
kept, how many batches a recompute committed, that an export's partial folder was removed),
else what the command declared (`interruption_note`): a command that opened its store to
write keeps nothing of the step under way, a reading one changed nothing.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
import threading
from types import TracebackType
from typing import Final, NoReturn

import click
from rich.text import Text

from valuechain.cli.messages import err

INTERRUPTED: Final = 128 + signal.SIGINT  # 130
NOTE_KEY: Final = "valuechain.interrupted"
NOTHING_CHANGED: Final = "nothing was changed"
ROLLED_BACK: Final = "the step under way was rolled back; the store holds what was committed before"


def interruption_note(note: str) -> None:
    """What the running command keeps if Ctrl-C stops it from now on."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[NOTE_KEY] = note


def stop_interrupted(ctx: click.Context, exc: BaseException) -> NoReturn:
    """The one line of an interrupted command on standard error (even with --quiet): what
    the pipeline said it kept, else what the command declared; exit 130."""
    if threading.current_thread() is threading.main_thread():  # the process is ending: a
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # second Ctrl-C cuts nothing short
    note = getattr(exc, "kept", None) or ctx.meta.get(NOTE_KEY) or NOTHING_CHANGED
    err.print(Text(f"interrupted: {note}", style="yellow"), highlight=False, soft_wrap=True)
    sys.exit(INTERRUPTED)


class CtrlC:
    """While open, Ctrl-C stops every query of the stores at once (``presses`` counts it).

    A command that stops gracefully on the first Ctrl-C (``import --follow``: its own SIGINT
    handler finishes the round) is left to do so; the second one stops its queries too."""

    def __init__(self) -> None:
        self.presses = 0
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._previous = -1
        self._watcher: threading.Thread | None = None

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is not threading.main_thread():
            return self  # signals reach the main thread only; nothing to watch here
        heard, told = socket.socketpair()
        told.setblocking(False)  # the signal handler never waits
        self._sockets = heard, told
        self._previous = signal.set_wakeup_fd(told.fileno(), warn_on_full_buffer=False)
        self._watcher = threading.Thread(target=self._watch, name="ctrl-c", daemon=True)
        self._watcher.start()
        return self

    def _watch(self) -> None:
        assert self._sockets is not None
        heard = self._sockets[0]
        while signals := heard.recv(64):  # empty: closed by __exit__
            for number in signals:
                if number != signal.SIGINT:
                    continue
                self.presses += 1
                graceful = signal.getsignal(signal.SIGINT) is not signal.default_int_handler
                if self.presses > 1 or not graceful:
                    _interrupt_queries()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._sockets is None:
            return
        signal.set_wakeup_fd(self._previous)
        heard, told = self._sockets
        with contextlib.suppress(OSError):
            told.shutdown(socket.SHUT_WR)  # the watcher reads the end and returns
        if self._watcher is not None:
            self._watcher.join()
        told.close()
        heard.close()


def _interrupt_queries() -> None:
    """Stop every store query under way (`store.interrupt`); none runs before a store was
    opened, and the command line does not load DuckDB before then."""
    running = sys.modules.get("valuechain.store.interrupt")
    if running is not None:
        running.interrupt_all()
