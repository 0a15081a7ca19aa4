"""A disk that fills (or a file-size limit reached) while the store is written, as one clear
error instead of DuckDB's exception — or the rollback error that follows it and hides it.

What happened to the store: DuckDB wrote nothing of the failed transaction (its write-ahead
log is appended at commit); an import's earlier committed batches are undone by the next
writable open (the in-progress mark, ``sql/ingest/5xx``). Everything committed before stays.
"""

from __future__ import annotations

import errno
import os

from valuechain.errors import StoreError

# How the operating system's "no space" and "file too large" read in DuckDB's messages.
_FULL = (os.strerror(errno.ENOSPC), os.strerror(errno.EFBIG), "Disk full")


def disk_full(exc: BaseException, store: str) -> StoreError | None:
    """A `StoreError` naming the full disk when ``exc`` (or an exception it arose from) is
    one; None for anything else, which the caller re-raises."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
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
        current = current.__cause__ or current.__context__
    return None
