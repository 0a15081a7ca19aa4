"""Who holds the store: DuckDB's file lock, the one "store is busy" error, and ``--wait``.

DuckDB lets one process write a database file, or several read it, never both: a writable
connection holds an exclusive lock on the file for its whole life, a read-only one a shared
lock. So a second writer, or a reader while an import runs, cannot open the store at all —
it never sees half an import. This module turns DuckDB's lock conflict into `StoreBusyError`
(naming the holder's pid) and, when asked, waits for the lock instead of failing.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import duckdb

from valuechain.errors import StoreBusyError
from valuechain.store.interrupt import interruptible

# The first retry comes quickly (a short command may be ending); later ones back off to this.
_MAX_PAUSE = 0.5
_SHOWN = 60  # characters of the holder's command line in the message
_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")


def connect(
    path: str, *, read_only: bool, wait: float = 0.0, config: dict[str, Any] | None = None
) -> duckdb.DuckDBPyConnection:
    """A connection to ``path`` (DuckDB ``config`` passed on); while another process holds a
    conflicting lock, wait up to ``wait`` seconds for it, then raise `StoreBusyError`. Any
    other failure is the caller's."""
    deadline = time.monotonic() + max(wait, 0.0)
    pause = 0.05
    while True:
        try:
            con = duckdb.connect(path, read_only=read_only, config=config or {})
            return interruptible(con)  # Ctrl-C stops its query (`interrupt`)
        except duckdb.IOException as exc:
            holder = lock_holder(str(exc))
            if holder is None:
                raise
            left = deadline - time.monotonic()
            if left <= 0:
                raise busy(path, holder, waited=wait) from exc
            time.sleep(min(pause, left))
            pause = min(pause * 2, _MAX_PAUSE)


def lock_holder(message: str) -> int | None:
    """The pid in DuckDB's lock-conflict message; None when ``message`` is another error."""
    found = _HOLDER.search(message)
    return int(found["pid"]) if found else None


def busy(path: str, pid: int, *, waited: float) -> StoreBusyError:
    what = _command_of(pid)
    holder = f"pid {pid}: {what}" if what else f"pid {pid}"
    if waited > 0:
        return StoreBusyError(
            path,
            f"store is still busy after waiting {waited:g} s ({holder}); "
            "retry or use a longer `--wait SECONDS`",
            "it is free again when that command ends",
        )
    return StoreBusyError(
        path,
        f"store is busy ({holder}); retry or use `--wait SECONDS`",
        "another command is writing to it (or reading it while you write); in Python, "
        "valuechain.open(path, wait=SECONDS)",
    )


def _command_of(pid: int) -> str | None:
    """The holder's command line from its program name on (``valuechain import x.jsonl``),
    shortened; None where /proc is not readable."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    words = [" ".join(a.decode(errors="replace").split()) for a in argv if a]
    at = next((i for i, w in enumerate(words) if Path(w).name == "valuechain"), 0)
    text = " ".join([Path(words[at]).name, *words[at + 1 :]]) if words else ""
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
