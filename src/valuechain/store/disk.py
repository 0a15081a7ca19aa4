"""What the disk does to a store, as one clear error each: a store that cannot be opened
(damaged, not a DuckDB file, on a read-only file system), a store found damaged while it is
read, and a disk that fills (or a
file-size limit reached) while the store is written — instead of DuckDB's exception, or the
rollback error that follows it and hides it.

What happened to the store: DuckDB wrote nothing of the failed transaction (its write-ahead
log is appended at commit); an import's earlier committed batches are undone by the next
writable open (the in-progress mark, ``sql/ingest/5xx``). Everything committed before stays.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator

import duckdb

from valuechain.errors import StoreError

# How the operating system's "no space" and "file too large" read in DuckDB's messages.
_FULL = (os.strerror(errno.ENOSPC), os.strerror(errno.EFBIG), "Disk full")
# How DuckDB says a store file is damaged (cut short, overwritten, a block's checksum wrong).
_DAMAGED = (
    "not a valid DuckDB database file",
    "Could not read enough bytes",
    "Corrupt database file",
    "checksum",
)
_DAMAGED_HINT = "the file is damaged: restore a copy of the store, or point --store elsewhere"
_REFUSED_HINT = (
    "the file is damaged or not a valuechain store, and was not changed: restore a copy, "
    "or point --store elsewhere"
)
# How DuckDB says the file is in a storage format newer than it reads.
_NEWER_DUCKDB = "created with a newer version of DuckDB"


def cannot_open(store: str, exc: BaseException) -> StoreError:
    """Why DuckDB could not open ``store``, with the fix that fits the cause."""
    text = str(exc)
    if os.strerror(errno.EROFS) in text or os.strerror(errno.EACCES) in text:
        hint = (
            "the store's folder cannot be written here: reading commands (runs, sql, "
            "funnel, …) still work; to write, copy the store somewhere writable"
        )
    elif "not a valid DuckDB database file" in text:  # refused before anything is written
        hint = _REFUSED_HINT
    elif _NEWER_DUCKDB in text:
        hint = (
            "the store was written by a newer DuckDB (a newer valuechain, say): upgrade "
            "valuechain to open it; the file was not changed"
        )
    elif any(sign in text for sign in _DAMAGED):
        return damaged(store, text)
    else:
        hint = "check the path and that its folder exists"
    return StoreError(store, f"cannot open the store ({text})", hint)


def damaged(store: str, what: str) -> StoreError:
    """The one error for a store file found damaged: at open (cut short, a header or catalog
    block whose checksum is wrong), by a verifying read, or by a read mid-command."""
    return StoreError(store, f"the store file is damaged ({what})", _DAMAGED_HINT)


def damage(exc: BaseException, store: str) -> StoreError | None:
    """`damaged` when ``exc`` (or an exception it arose from) is DuckDB finding the file
    damaged; None for anything else."""
    for current in _chain(exc):
        text = str(current)
        # a block whose checksum is wrong, found by a read mid-command, is a plain duckdb.Error
        # (a user's SQL that merely names a "checksum" column is a subclass's error)
        if (isinstance(current, duckdb.IOException) or type(current) is duckdb.Error) and any(
            s in text for s in _DAMAGED
        ):
            return damaged(store, text)
    return None


def storage_error(exc: BaseException, store: str) -> StoreError | None:
    """A `StoreError` naming a full disk or a damaged store file when ``exc`` (or an
    exception it arose from) is one; None for anything else, which the caller re-raises."""
    for current in _chain(exc):
        text = str(current)
        found = next((reason for reason in _FULL if reason in text), None)
        if found is not None:
            return StoreError(
                store,
                f"the disk is full ({found}): the command stopped; what was committed before "
                "it stays, and its unfinished part is undone when the store is next opened "
                "for writing",
                "free space on that disk (or move the store) and run the command again",
            )
    return damage(exc, store)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it arose from, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
