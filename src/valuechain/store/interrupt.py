"""Stopping a DuckDB query that holds the main thread: Ctrl-C, and a time limit.

A query runs in DuckDB's C++ with Python's main thread waiting on it, so Python's Ctrl-C
(`KeyboardInterrupt`) arrives only once the query returns — a runaway one never does. Only
``connection.interrupt()``, called from another thread, stops it; the query then raises
`duckdb.InterruptException`. Every connection valuechain opens is tracked here (weakly), so
that whoever watches for Ctrl-C (the command line) can stop them all (`interrupt_all`), and
`time_limit` stops one connection's query after so many seconds.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator

import duckdb

from valuechain.errors import QueryTimeoutError

_LIVE: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()
# What DuckDB raises when it noticed Ctrl-C itself (it checks for signals while it hands rows
# over to Python): a plain RuntimeError with this message.
_NOTICED = "Query interrupted"


def interruptible(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Track ``con`` so that `interrupt_all` reaches it; returns it."""
    _LIVE.add(con)
    return con


def interrupt_all() -> None:
    """Stop the query running on every tracked connection (an idle one is unaffected: the
    flag is cleared when its next query starts). Safe from any thread."""
    for con in list(_LIVE):
        with contextlib.suppress(duckdb.Error):  # closed meanwhile
            con.interrupt()


def is_interruption(exc: BaseException) -> bool:
    """Whether ``exc`` is how a stopped query or Ctrl-C surfaces: a `KeyboardInterrupt`,
    DuckDB's interrupt error, or the RuntimeError DuckDB raises when it saw the signal."""
    return isinstance(exc, KeyboardInterrupt | duckdb.InterruptException) or (
        type(exc) is RuntimeError and str(exc) == _NOTICED
    )


@contextlib.contextmanager
def time_limit(con: duckdb.DuckDBPyConnection, seconds: float | None, where: str) -> Iterator[None]:
    """Stop the query running on ``con`` once ``seconds`` have passed (None: no limit), and
    raise `QueryTimeoutError` in its place."""
    if seconds is None:
        yield
        return
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        with contextlib.suppress(duckdb.Error):
            con.interrupt()

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    except duckdb.InterruptException as exc:
        if expired.is_set():
            raise QueryTimeoutError(
                where,
                f"the query ran longer than {seconds:g} s and was stopped",
                "give it more time (--timeout SECONDS, or timeout= in Python), or narrow it "
                "(a WHERE, a LIMIT, fewer joins)",
            ) from exc
        raise
    finally:
        timer.cancel()
        timer.join()
