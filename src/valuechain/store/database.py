"""The DuckDB store: one file, a schema version, atomic per-source imports, an import ledger.

Stored tables live in the DuckDB schema ``core``; users read the views of ``main`` (``spans``,
``events``, ``links``, ``attributes``, ``imports``, ``issues``, ``traces``) with ids as
lower-case hex. Every source is committed in one transaction: a failure leaves the store
exactly as it was. The same bytes imported twice change nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from valuechain._version import __version__
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import StoreError, VersionAheadError
from valuechain.store import lock, sqlfiles
from valuechain.store.consistency import check_ledger
from valuechain.store.disk import cannot_open
from valuechain.store.memory_limit import memory_limit_bytes
from valuechain.store.pending import PendingDerivation, PendingGroup
from valuechain.store.sandbox import read_only_sql, sandbox

STORE_SCHEMA_VERSION = 6  # sql/migrate/NNN_{before,after}_* bring an older store to NNN
DEFAULT_STORE = "valuechain.duckdb"
STORE_ENV = "VALUECHAIN_STORE"
# DuckDB's own default is 80 % of the machine's memory, kept as a page cache that grows with the
# store; a bound keeps an import's footprint flat (DuckDB spills to disk beyond it).
DEFAULT_MEMORY_LIMIT = "1GB"
MEMORY_LIMIT_ENV = "VALUECHAIN_MEMORY_LIMIT"


def default_store_path() -> Path:
    """``$VALUECHAIN_STORE`` if set, else ``./valuechain.duckdb``."""
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


class Database:
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
        try:
            self.con = lock.connect(self.path, read_only=read_only, wait=wait)
        except duckdb.Error as exc:
            raise cannot_open(self.path, exc) from exc
        try:
            sandbox(
                self.con, self.path, memory_limit=limit, allowed_directories=allowed_directories
            )
        except StoreError:
            self.con.close()
            raise
        try:
            stored = self._check_version(read_only=read_only)
        except StoreError:
            self.con.close()  # refused: release the file untouched
            raise
        if not read_only:
            self._create(stored)
            self._recover()
        elif self._interrupted_import() is not None:
            self.con.close()
            raise StoreError(
                self.path,
                "an import into this store was interrupted and is not undone yet",
                "run any command that writes to the store (valuechain import, derive, "
                "materialize): it undoes the unfinished import first",
            )
        if stored is not None or not read_only:  # a file without valuechain's tables: nothing
            try:
                check_ledger(self.con, self.path)
            except StoreError:
                self.con.close()
                raise

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

    def _stored_version(self) -> int | None:
        """The store's schema version; None for a new (empty) file."""
        found = self.fetch_one(
            "SELECT count(*) FROM information_schema.tables "
            "WHERE table_schema = 'core' AND table_name = 'meta'"
        )
        if not found or not found[0]:
            return None
        row = self.fetch_one("SELECT value FROM core.meta WHERE key = 'schema_version'")
        return int(row[0]) if row else 0

    def _check_version(self, *, read_only: bool) -> int | None:
        version = self._stored_version()
        if version is not None and version > STORE_SCHEMA_VERSION:
            raise VersionAheadError(
                self.path,
                f"the store has schema version {version}, newer than this "
                f"valuechain ({__version__}) understands ({STORE_SCHEMA_VERSION})",
                "upgrade valuechain; the store was not changed",
            )
        if read_only and version is not None and version < STORE_SCHEMA_VERSION:
            raise StoreError(
                self.path,
                f"the store has schema version {version}, older than this valuechain's "
                f"({STORE_SCHEMA_VERSION})",
                "run any command that writes to the store once (valuechain import, derive, "
                "materialize): it upgrades the store in place",
            )
        return version

    def _create(self, stored: int | None) -> None:
        """Create what is missing, bring an older store up to date (``sql/migrate``), and
        (re)create the views, in one transaction."""
        self.con.begin()
        params = {"current_analyzer": STAGE_ANALYZER_VERSION}
        for sql in _migrations(stored, "before"):  # e.g. set a table aside to rebuild it
            self.con.execute(sql.text, sql.bind(params))
        for sql in sqlfiles.folder("schema"):
            self.con.execute(sql.text)
        for sql in _migrations(stored, "after"):
            self.con.execute(sql.text, sql.bind(params))
        for sql in sqlfiles.folder("views"):
            self.con.execute(sql.text)
        self.con.execute(
            "INSERT OR REPLACE INTO core.meta VALUES ('schema_version', $v)",
            {"v": str(STORE_SCHEMA_VERSION)},
        )
        self.con.execute(
            "INSERT OR IGNORE INTO core.meta VALUES ('created_by', $by)", {"by": __version__}
        )
        self.con.commit()

    def _interrupted_import(self) -> dict[str, int] | None:
        """The offsets of an import that started and never finished (a crash), if any."""
        try:
            row = self.fetch_one("SELECT value FROM core.meta WHERE key = $k", {"k": _MARKER})
        except duckdb.CatalogException:  # a store older than its schema: nothing to undo
            return None
        return {k: int(v) for k, v in json.loads(row[0]).items()} if row else None

    def _recover(self) -> None:
        offsets = self._interrupted_import()
        if offsets is not None:
            self.undo_import(offsets)

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

    # ------------------------------------------------------------------ reading
    def fetch_one(self, query: str, params: dict[str, Any] | None = None) -> tuple[Any, ...] | None:
        """The first row of a small query, with the result fully consumed."""
        rows = self.con.execute(query, params or {}).fetchall()
        return rows[0] if rows else None

    def sql(self, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
        """Run one reading statement (a user's) and return its result as a polars DataFrame.

        Anything that is not one read is refused (`sandbox.check_reads_only`); the statement
        runs in a transaction that is rolled back, on a connection that reaches no file."""
        return read_only_sql(self.con, query, params)

    def has_source(self, sha256: str) -> bool:
        """Whether bytes with this sha256 were imported already."""
        row = self.fetch_one("SELECT count(*) FROM core.sources WHERE sha256 = $s", {"s": sha256})
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

    def trace_runs(self) -> list[tuple[bytes, str]]:
        """Every trace with the key of its run, ordered by run (``sql/query/trace_runs.sql``)."""
        rows = self.con.execute(sqlfiles.statement("query/trace_runs.sql").text).fetchall()
        return [(bytes(trace_id), str(run_key)) for trace_id, run_key in rows]

    def trial_rows(self, trace_ids: Iterable[str | bytes]) -> tuple[pa.Table, pa.Table]:
        """(spans, attributes) of the given traces, in the shapes the evidence adapter takes
        (``sql/evidence``); every file and import a trace arrived in is read, so its trials
        are rebuilt whole. Ids are hex strings or 16 raw bytes each."""
        ids = _hex_ids(trace_ids)
        return self._arrow(_TRIAL_SPANS, ids), self._arrow(_TRIAL_ATTRIBUTES, ids)

    def trial_sources(self, trace_ids: Iterable[str | bytes]) -> dict[int, str]:
        """source_id → sha256 (hex) of every source holding spans of the traces (§3.8)."""
        table = self._arrow(_TRIAL_SOURCES, _hex_ids(trace_ids))
        return dict(
            zip(
                table.column("source_id").to_pylist(),
                table.column("sha256").to_pylist(),
                strict=True,
            )
        )

    def _arrow(self, name: str, trace_ids: list[str]) -> pa.Table:
        sql = sqlfiles.statement(name)
        table: pa.Table = self.con.sql(
            sql.text, params=sql.bind({"trace_ids": trace_ids})
        ).to_arrow_table()
        return table

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
        """Run ``statements``, then ``then``, in one transaction: all of it or none."""
        con = self.con
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


def _migrations(stored: int | None, phase: str) -> list[sqlfiles.SqlFile]:
    """The ``sql/migrate`` scripts of ``phase`` (before/after the schema files) that bring a
    store at version ``stored`` up to date, in order; none for a new store."""
    if stored is None:
        return []
    out = []
    for sql in sqlfiles.folder("migrate"):
        version, file_phase, _ = sql.name.partition("/")[2].split("_", 2)
        if file_phase == phase and int(version) > stored:
            out.append(sql)
    return out


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
_TRIAL_SPANS = "evidence/010_trial_spans.sql"
_TRIAL_ATTRIBUTES = "evidence/020_trial_attributes.sql"
_TRIAL_SOURCES = "evidence/030_trial_sources.sql"


def _hex_ids(trace_ids: Iterable[str | bytes]) -> list[str]:
    return sorted({t.hex() if isinstance(t, bytes) else t.lower() for t in trace_ids})
