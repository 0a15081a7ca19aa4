"""The DuckDB store: one file, a schema version, atomic per-source imports, an import ledger.

Stored tables live in the DuckDB schema ``core``; users read the views of ``main`` (``spans``,
``events``, ``links``, ``attributes``, ``imports``, ``issues``, ``traces``) with ids as
lower-case hex. Every source is committed in one transaction: a failure leaves the store
exactly as it was. The same bytes imported twice change nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import duckdb

from valuechain._version import __version__
from valuechain.errors import StoreError
from valuechain.store import integrity, migrate, sqlfiles
from valuechain.store.consistency import check_ledger
from valuechain.store.disk import damage, storage_error
from valuechain.store.evidence_reads import EvidenceReads
from valuechain.store.files import wal_path
from valuechain.store.location import default_store_path
from valuechain.store.memory_limit import (
    DEFAULT_MEMORY_LIMIT,
    MEMORY_LIMIT_ENV,
    memory_limit_bytes,
)
from valuechain.store.migrate import STORE_SCHEMA_VERSION
from valuechain.store.pending import PendingDerivation, PendingGroup
from valuechain.store.sandbox import connect, read_only_sql

if TYPE_CHECKING:  # the engines load with the first read or write that needs them
    import polars as pl
    import pyarrow as pa


class Database(EvidenceReads):
    """The valuechain store's DuckDB file (or ``:memory:``): schema, ledger, atomic commits."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        read_only: bool = False,
        memory_limit: str | None = None,
        allowed_directories: Sequence[Path] = (),
        wait: float = 0.0,
    ) -> None:
        self.path = str(path)
        limit = memory_limit or os.environ.get(MEMORY_LIMIT_ENV) or DEFAULT_MEMORY_LIMIT
        memory_limit_bytes(limit, "memory_limit" if memory_limit else f"${MEMORY_LIMIT_ENV}")
        self.migrated_from: int | None = None  # the schema version this open migrated from
        self.views_refreshed = False  # a read-only open found other views: temporary ones
        self._in_transaction = False
        self._connect: migrate.Connect = partial(
            connect,
            read_only=read_only,
            memory_limit=limit,
            allowed=allowed_directories,
            wait=wait,
        )
        self._verified = False  # every table's blocks read back (integrity.scan)
        if not read_only:
            self._look_first(partial(self._connect, read_only=True))
        self.con = self._connect(Path(self.path))
        try:
            self._open(read_only)
        except BaseException as exc:
            self.con.close()  # refused: release the file untouched
            found = storage_error(exc, self.path) if isinstance(exc, duckdb.Error) else None
            if found is None:
                raise
            raise found from exc

    def _look_first(self, connect_read_only: migrate.Connect) -> None:
        """Read a store that has a write-ahead log beside it (a writer was killed) before
        opening it for writing: a writable connection writes the log into the file when it
        closes, whatever the command did. A read-only one replays it in memory only."""
        path = Path(self.path)
        if not (path.is_file() and wal_path(path).is_file()):
            return
        con = connect_read_only(path)
        try:
            migrate.check_version(con, self.path, read_only=True, allow_older=True)
            integrity.scan(con, self.path)
        finally:
            con.close()
        self._verified = True

    def _open(self, read_only: bool) -> int | None:
        """Check the version (migrating an older store safely when writable), create or
        refresh the views, undo an interrupted import, check the ledger. Nothing is written to
        a current store; a store that needs set-up or an undo is read back first."""
        stored = migrate.check_version(self.con, self.path, read_only=read_only)
        if not read_only and stored is not None and stored < STORE_SCHEMA_VERSION:
            self.con.execute("CHECKPOINT")  # held open (locked) until the copy is in
            migrate.migrate_file(Path(self.path), stored, self._connect)
            self.con.close()
            self.migrated_from, stored = stored, STORE_SCHEMA_VERSION
            self.con = self._connect(Path(self.path))
        if not read_only:
            setup = migrate.setup_needed(self.con, stored)
            undo = self._interrupted_import()
            if stored is not None and (setup or undo is not None) and not self._verified:
                integrity.scan(self.con, self.path)  # before the first write
                self._verified = True
            if setup:
                migrate.create(self.con, stored)
            if undo is not None:
                self.undo_import(undo)
        elif self._interrupted_import() is not None:
            raise StoreError(
                self.path,
                "an import into this store was interrupted and is not undone yet",
                "run any command that writes to the store (valuechain import, derive, "
                "materialize): it undoes the unfinished import first",
            )
        elif stored is not None:
            self.views_refreshed = migrate.refresh_views_if_stale(self.con, self.path)
        if stored is not None or not read_only:  # a file without valuechain's tables: nothing
            check_ledger(self.con, self.path)
        return stored

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    def _interrupted_import(self) -> dict[str, int] | None:
        """The offsets of an import that started and never finished (a crash), if any."""
        try:
            row = self.fetch_one("SELECT value FROM core.meta WHERE key = $k", {"k": _MARKER})
        except duckdb.CatalogException:  # a store older than its schema: nothing to undo
            return None
        return {k: int(v) for k, v in json.loads(row[0]).items()} if row else None

    def undo_import(self, offsets: Mapping[str, int]) -> None:
        """Delete every row an unfinished import wrote and clear its mark, in one transaction."""
        con = self.con
        con.begin()
        try:
            for sql in _undo_statements():
                con.execute(sql.text, sql.bind(offsets))
            con.commit()
        except BaseException:
            con.rollback()
            raise

    def pending_derivation(self) -> PendingDerivation | None:
        """What was imported but not derived yet (a crash after a source committed, a failing
        later source, ``--no-derive``); None when every imported trace is derived."""
        row = self.fetch_one(sqlfiles.statement(_PENDING_SUMMARY).text)
        if not row or not row[0]:
            return None
        return PendingDerivation(sources=int(row[0]), traces=int(row[1]))

    def pending_derivations(self) -> list[PendingGroup]:
        """The pending derivations by analyzer version, oldest source first."""
        rows = self.con.execute(sqlfiles.statement(_PENDING_GROUPS).text).fetchall()
        return [
            PendingGroup(int(analyzer), tuple(sources), tuple(bytes(t) for t in traces))
            for analyzer, sources, traces in rows
        ]

    def clear_pending(self, source_ids: Iterable[int]) -> None:
        """These sources are derived now (trials, chains and documents committed)."""
        sql = sqlfiles.statement(_PENDING_CLEAR)
        self.con.execute(sql.text, sql.bind({"source_ids": sorted(source_ids)}))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction around several steps: the writing methods called inside join it
        (commits at the end, rolls back on any exception)."""
        if self._in_transaction:
            raise RuntimeError("a transaction is already open on this store")
        self.con.begin()
        self._in_transaction = True
        try:
            yield self.con
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise
        finally:
            self._in_transaction = False

    def log_operation(self, operation: str, target: str | None, details: Mapping[str, Any]) -> None:
        """Record a store operation that changed the store (``core.store_operations``)."""
        log_operation(self.con, operation, target, details)

    # ------------------------------------------------------------------ reading
    def fetch_one(self, query: str, params: dict[str, Any] | None = None) -> tuple[Any, ...] | None:
        """The first row of a small query, with the result fully consumed."""
        rows = self.con.execute(query, params or {}).fetchall()
        return rows[0] if rows else None

    def sql(
        self, query: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> pl.DataFrame:
        """Run one reading statement (a user's) and return its result as a polars DataFrame.

        Anything that is not one read is refused (`sandbox.check_reads_only`); the statement
        runs in a transaction that is rolled back, on a connection that reaches no file, and
        is stopped after ``timeout`` seconds (`QueryTimeoutError`)."""
        try:
            return read_only_sql(self.con, query, params, timeout=timeout)
        except duckdb.Error as exc:
            found = damage(exc, self.path)
            if found is None:
                raise
            raise found from exc

    def has_source(self, sha256: str) -> bool:
        """Whether bytes with this sha256 were imported already."""
        sql = sqlfiles.statement("ingest/022_stored_sha256.sql")
        row = self.fetch_one(sql.text, sql.bind({"sha256": sha256}))
        return bool(row and row[0])

    def has_source_of_size(self, bytes_raw: int) -> bool:
        """Whether some imported source has this many bytes (the same bytes would have)."""
        sql = sqlfiles.statement("ingest/021_stored_size.sql")
        row = self.fetch_one(sql.text, sql.bind({"bytes_raw": bytes_raw}))
        return bool(row and row[0])

    def stored_source(self, sha256: str) -> tuple[str, str | None, str | None, int] | None:
        """Bytes already imported: (status, first error code, its message, error count)."""
        sql = sqlfiles.statement("ingest/020_stored_source.sql")
        row = self.fetch_one(sql.text, sql.bind({"sha256": sha256}))
        return (row[0], row[1], row[2], int(row[3])) if row else None

    def next_import_id(self) -> int:
        row = self.fetch_one("SELECT coalesce(max(import_id), 0) + 1 FROM core.sources")
        return int(row[0]) if row else 1

    # ------------------------------------------------------------------ writing
    def next_rows(self) -> dict[str, int]:
        """The first row id of every table a new source will write (its undo offsets)."""
        cursor = self.con.execute(sqlfiles.statement("ingest/000_next_rows.sql").text)
        rows = cursor.fetchall()
        row = rows[0]
        names = [d[0] for d in cursor.description]
        return dict(zip(names, (int(v) for v in row), strict=True))

    def replace_trials(
        self,
        touched: pa.Table,
        tables: Mapping[str, pa.Table],
        *,
        analyzer: int,
        replace_all_versions: bool,
        then: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
    ) -> None:
        """Replace the trials of the ``touched`` traces and their chains in one transaction;
        ``then`` writes what follows from them (their runs' documents) in the same one."""
        con = self.con
        params = {"analyzer": analyzer, "replace_all_versions": replace_all_versions}
        try:
            con.register("touched_traces", touched)
            for name, table in tables.items():
                con.register(f"staged_{name}", table)
            self._write(sqlfiles.folder("derive"), params, then)
        finally:
            for name in ("touched_traces", *(f"staged_{n}" for n in tables)):
                con.unregister(name)

    def prune_derived(
        self,
        target: int,
        run_ids: Sequence[str] | None,
        then: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
    ) -> None:
        """Delete the derived chains older than ``target`` of trials that have one at
        ``target`` (``run_ids``, None: every run; ``sql/recompute/2xx``), and ``then`` rebuild
        what follows from them, in one transaction. The producer's chains are never touched."""
        params = {"target": target, "all_runs": run_ids is None, "run_ids": list(run_ids or ())}
        statements = [f for f in sqlfiles.folder("recompute") if f.name >= _FIRST_PRUNE]
        self._write(statements, params, then)

    def _write(
        self,
        statements: Iterable[sqlfiles.SqlFile],
        params: Mapping[str, Any],
        then: Callable[[duckdb.DuckDBPyConnection], object] | None,
    ) -> None:
        """Run ``statements``, then ``then``, in one transaction: all of it or none (inside
        ``transaction()``, in that one)."""
        con = self.con
        if self._in_transaction:
            for sql in statements:
                con.execute(sql.text, sql.bind(params))
            if then is not None:
                then(con)
            return
        con.begin()
        try:
            for sql in statements:
                con.execute(sql.text, sql.bind(params))
            if then is not None:
                then(con)
            con.commit()
        except BaseException:
            con.rollback()
            raise


def log_operation(
    con: duckdb.DuckDBPyConnection, operation: str, target: str | None, details: Mapping[str, Any]
) -> None:
    """Record a store operation in ``core.store_operations`` on ``con`` (a store, or the copy
    of one an operation swaps in: then the record arrives with what it records)."""
    sql = sqlfiles.statement("store/130_insert_operation.sql")
    params = {
        "operation": operation,
        "target": target,
        "details": json.dumps(details, sort_keys=True, default=str),
        "valuechain": __version__,
    }
    con.execute(sql.text, sql.bind(params))


def open_database(
    path: str | Path | None = None,
    *,
    read_only: bool = False,
    memory_limit: str | None = None,
    allowed_directories: Sequence[Path] = (),
    wait: float = 0.0,
) -> Database:
    """Open (creating if needed) the store at ``path`` or the default location; while another
    process holds it, wait up to ``wait`` seconds (then `StoreBusyError`)."""
    target = Path(path) if path is not None else default_store_path()
    if read_only and not target.exists():
        raise StoreError(
            str(target), "no store here yet", "import something first: valuechain import PATH"
        )
    return Database(
        target,
        read_only=read_only,
        memory_limit=memory_limit,
        allowed_directories=allowed_directories,
        wait=wait,
    )


def _undo_statements() -> list[sqlfiles.SqlFile]:
    undo = [f for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/5")]
    return [*undo, sqlfiles.statement(END_IMPORT)]


BEGIN_IMPORT = "ingest/010_begin_import.sql"
END_IMPORT = "ingest/980_end_import.sql"
_MARKER = "import_in_progress"
_PENDING_SUMMARY = "query/pending_summary.sql"
_PENDING_GROUPS = "query/pending_derivations.sql"
_PENDING_CLEAR = "ingest/600_delete_pending_derivations.sql"
_FIRST_PRUNE = "recompute/200_"
