"""The Python face of valuechain; it mirrors the CLI verbs and returns polars frames.

>>> import valuechain
>>> store = valuechain.open("valuechain.duckdb")
>>> report = store.import_paths(["exports/"])
>>> store.sql("SELECT count(*) FROM spans")

One thin method per verb on `Store`, each a call into pipeline/query/report that imports
what it calls: opening a store and listing its runs loads DuckDB, polars and the query side,
not the decoders, derive or the report (`valuechain runs` answers in well under a second).
The verbs live in two halves of `Store` by what they do to the store: `api.changes` (import,
derive, recompute, …) and `api.reads` (runs, funnel, trial, verdict, …); the Python API
reference shows them as one class. The functions that need no store live in
`valuechain.api.tools`, re-exported here on first use.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from valuechain.api.changes import StoreChanges
from valuechain.api.reads import StoreReads

if TYPE_CHECKING:
    from valuechain.api.tools import decode, read_policy_file, scale, synth_history
    from valuechain.store import Database

__all__ = ["Store", "decode", "open", "read_policy_file", "scale", "synth_history"]

_TOOLS = frozenset({"decode", "read_policy_file", "scale", "synth_history"})


def __getattr__(name: str) -> Any:
    """The functions that need no store (`valuechain.api.tools`), loaded on first use."""
    if name not in _TOOLS:
        raise AttributeError(f"module 'valuechain.api' has no attribute {name!r}")
    from valuechain.api import tools

    value = getattr(tools, name)
    globals()[name] = value
    return value


class Store(StoreChanges, StoreReads):
    """A valuechain store: import exports, query the tables and views with SQL. Its verbs are
    grouped by what they do to the store (`api.changes`, `api.reads`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def path(self) -> str:
        return self.db.path

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open(
    path: str | Path | None = None,
    *,
    read_only: bool = False,
    memory_limit: str | None = None,
    allow_files: str | Path | None = None,
    wait: float = 0.0,
) -> Store:
    """Open (creating if needed) a store; ``None`` means ``$VALUECHAIN_STORE`` or the default.

    ``memory_limit`` bounds DuckDB's memory (default ``$VALUECHAIN_MEMORY_LIMIT`` or 512MB);
    ``allow_files`` opens one folder for `Store.sql` to read files from (none by default);
    ``wait``: while another process holds the store, wait up to this many seconds for it
    (default: fail at once with "store is busy (pid …)")."""
    from valuechain.store import open_database

    allowed = () if allow_files is None else (Path(allow_files),)
    return Store(
        open_database(
            path,
            read_only=read_only,
            memory_limit=memory_limit,
            allowed_directories=allowed,
            wait=wait,
        )
    )
