"""The DuckDB store: one file, a schema version, atomic per-source imports, an import ledger.

Stored tables live in the DuckDB schema ``core``; users read the views of ``main`` (``spans``,
``events``, ``links``, ``attributes``, ``imports``, ``issues``, ``traces``) with ids as
lower-case hex. Every source is committed in one transaction: a failure leaves the store
exactly as it was. The same bytes imported twice change nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from valuechain import sqlfiles
from valuechain._version import __version__
from valuechain.contract.issues import AGGREGATED, HINTS, Code, Issue, issues_table
from valuechain.errors import StoreError, VersionAheadError
from valuechain.ingest.source.decoded import DecodedSource

STORE_SCHEMA_VERSION = 3  # sql/migrate/NNN_{before,after}_* bring an older store to NNN
DEFAULT_STORE = "valuechain.duckdb"
STORE_ENV = "VALUECHAIN_STORE"
# DuckDB's own default is 80 % of the machine's memory, kept as a page cache that grows with the
# store; a bound keeps an import's footprint flat (DuckDB spills to disk beyond it).
DEFAULT_MEMORY_LIMIT = "1GB"
MEMORY_LIMIT_ENV = "VALUECHAIN_MEMORY_LIMIT"


def default_store_path() -> Path:
    """``$VALUECHAIN_STORE`` if set, else ``./valuechain.duckdb``."""
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


@dataclass(frozen=True, slots=True)
class Committed:
    """What committing one source wrote."""

    source_id: int
    span_rows: int
    spans_deduplicated: int
    attributes_deduplicated: int
    conflicts: int


class Database:
    """The valuechain store's DuckDB file (or ``:memory:``): schema, ledger, atomic commits."""

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        read_only: bool = False,
        memory_limit: str | None = None,
    ) -> None:
        self.path = str(path)
        limit = memory_limit or os.environ.get(MEMORY_LIMIT_ENV) or DEFAULT_MEMORY_LIMIT
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.Error as exc:
            raise StoreError(
                self.path,
                f"cannot open the store ({exc})",
                "check the path, or close the program holding the file",
            ) from exc
        try:
            self.con.execute("SET memory_limit = $limit", {"limit": limit})
        except duckdb.Error as exc:
            self.con.close()
            raise StoreError(
                self.path,
                f"memory limit {limit!r} not understood ({exc})",
                f"give a size such as 512MB or 2GB (--memory-limit or ${MEMORY_LIMIT_ENV})",
            ) from exc
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
        found = self._one(
            "SELECT count(*) FROM information_schema.tables "
            "WHERE table_schema = 'core' AND table_name = 'meta'"
        )
        if not found or not found[0]:
            return None
        row = self._one("SELECT value FROM core.meta WHERE key = 'schema_version'")
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
        for sql in _migrations(stored, "before"):  # e.g. set a table aside to rebuild it
            self.con.execute(sql.text)
        for sql in sqlfiles.folder("schema"):
            self.con.execute(sql.text)
        for sql in _migrations(stored, "after"):
            self.con.execute(sql.text)
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
            row = self._one("SELECT value FROM core.meta WHERE key = $k", {"k": _MARKER})
        except duckdb.CatalogException:  # a store older than its schema: nothing to undo
            return None
        return {k: int(v) for k, v in json.loads(row[0]).items()} if row else None

    def _recover(self) -> None:
        offsets = self._interrupted_import()
        if offsets is not None:
            self._undo_import(offsets)

    def _undo_import(self, offsets: Mapping[str, int]) -> None:
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

    # ------------------------------------------------------------------ reading
    def _one(self, query: str, params: dict[str, Any] | None = None) -> tuple[Any, ...] | None:
        """The first row of a small query, with the result fully consumed."""
        rows = self.con.execute(query, params or {}).fetchall()
        return rows[0] if rows else None

    def sql(self, query: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
        """Run ``query`` and return the result as a polars DataFrame."""
        relation = self.con.sql(query, params=params or None)
        if relation is None:  # a statement without a result (DDL, INSERT, …)
            return pl.DataFrame()
        frame = pl.from_arrow(relation.to_arrow_table())
        assert isinstance(frame, pl.DataFrame)
        return frame

    def has_source(self, sha256: str) -> bool:
        """Whether bytes with this sha256 were imported already."""
        row = self._one("SELECT count(*) FROM core.sources WHERE sha256 = $s", {"s": sha256})
        return bool(row and row[0])

    def next_import_id(self) -> int:
        row = self._one("SELECT coalesce(max(import_id), 0) + 1 FROM core.sources")
        return int(row[0]) if row else 1

    # ------------------------------------------------------------------ writing
    def commit_source(self, decoded: DecodedSource, import_id: int) -> Committed:
        """Write one accepted source in a single transaction (all or nothing)."""
        if decoded.status == "rejected":
            raise ValueError("a rejected source is never written to the store")
        with self.source_writer(decoded.source, import_id) as writer:
            batch_tables = {k: v for k, v in decoded.tables.items() if k != "issues"}
            issues = [i for i in decoded.issues if i.code not in AGGREGATED]
            closing = [i for i in decoded.issues if i.code in AGGREGATED]
            writer.add(batch_tables, issues)
            return writer.finish(decoded, closing)

    def source_writer(self, path: str, import_id: int) -> SourceWriter:
        """A transaction writing one source batch by batch (see ``SourceWriter``)."""
        return SourceWriter(self, path, import_id)

    def _next_rows(self) -> dict[str, int]:
        cursor = self.con.execute(sqlfiles.statement("ingest/000_next_rows.sql").text)
        rows = cursor.fetchall()
        row = rows[0]
        names = [d[0] for d in cursor.description]
        return dict(zip(names, (int(v) for v in row), strict=True))

    def all_traces(self) -> list[bytes]:
        """Every trace id in the store, in byte order."""
        rows = self.con.execute("SELECT DISTINCT trace_id FROM core.spans ORDER BY 1").fetchall()
        return [bytes(r[0]) for r in rows]

    def trace_runs(self) -> list[tuple[bytes, str]]:
        """Every trace with the key of its run, ordered by run (``sql/query/trace_runs.sql``)."""
        rows = self.con.execute(sqlfiles.statement("query/trace_runs.sql").text).fetchall()
        return [(bytes(trace_id), str(run_key)) for trace_id, run_key in rows]

    def replace_trials(
        self,
        touched: pa.Table,
        tables: Mapping[str, pa.Table],
        *,
        analyzer: int,
        replace_all_versions: bool,
    ) -> None:
        """Replace the trials of the ``touched`` traces and their chains in one transaction."""
        con = self.con
        con.begin()
        try:
            con.register("touched_traces", touched)
            for name, table in tables.items():
                con.register(f"staged_{name}", table)
            params = {"analyzer": analyzer, "replace_all_versions": replace_all_versions}
            for sql in sqlfiles.folder("derive"):
                con.execute(sql.text, sql.bind(params))
            con.commit()
        except BaseException:
            con.rollback()
            raise
        finally:
            for name in ("touched_traces", *(f"staged_{n}" for n in tables)):
                con.unregister(name)


class SourceWriter:
    """One source's import: ``add`` each batch in order, then ``finish`` (or leave the ``with``
    block with an exception, which undoes everything: a rejected or failed source leaves the
    store exactly as it was).

    A transaction holds at most one batch: each batch is committed when the next one arrives,
    so memory stays bounded however large the source is (one transaction holding a whole
    multi-gigabyte source keeps it all in memory), while a one-batch source is still one
    transaction. Atomicity comes from an in-progress mark written first with the row ids the
    source starts from: until ``finish`` writes the ledger row and clears the mark, ``abort`` —
    or, after a crash, the next writable open of the store — deletes every row from those
    offsets on (``sql/ingest/5xx``). Batches carry source-local row ids
    (``ingest.decode.rebase``). Each batch runs the ``sql/ingest/1xx`` statements
    (deduplication against everything stored so far, this source's earlier batches included,
    then the inserts); ``finish`` writes the closing issues and the ledger row (``9xx``).
    """

    def __init__(self, db: Database, path: str, import_id: int) -> None:
        self.db = db
        self.con = db.con
        self.path = path
        self.import_id = import_id
        self.offsets: dict[str, int] = {}
        self.params: dict[str, Any] = {}
        self.span_rows = self.attribute_rows = 0
        self.spans_deduplicated = self.attributes_deduplicated = 0
        self.conflicts = 0
        self._open = False  # between a successful start and finish/abort
        self._batch_pending = False  # the open transaction holds a batch not yet committed
        self._committed = False  # some of this source is committed: undoing needs deletes

    def __enter__(self) -> SourceWriter:
        self.con.begin()
        try:
            self.offsets = self.db._next_rows()
            self.params = {
                **self.offsets,
                "hint": None,
                "import_id": self.import_id,
                "path": self.path,
            }
            begin = sqlfiles.statement(_BEGIN)
            self.con.execute(begin.text, {"marker": json.dumps(self.offsets, sort_keys=True)})
        except BaseException:
            self.con.rollback()
            raise
        self._open = True
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._open:  # an exception, or a source that was never finished: nothing stays
            self.abort()

    def abort(self) -> None:
        """Undo everything this source wrote (its committed batches included)."""
        if not self._open:
            return
        self._open = False
        self.con.rollback()
        if self._committed:
            self.db._undo_import(self.offsets)

    def add(self, batch_tables: dict[str, pa.Table], issues: list[Issue]) -> None:
        """Write one batch: its rows (deduplicated) and its issues; the batch before it, if
        any, is committed first."""
        if not self._open:
            raise RuntimeError("the source's import is over; start a new writer")
        con, params = self.con, self.params
        staged = {**batch_tables, "issues": issues_table(issues)}
        try:
            if self._batch_pending:
                con.commit()
                self._committed = True
                con.begin()
            for name, table in staged.items():
                con.register(f"staged_{name}", table)
            for sql in _batch_statements():
                if sql.name.endswith("_dedup_counts.sql"):
                    row = self.db._one(sql.text, sql.bind(params))
                    if row:
                        self.spans_deduplicated += int(row[0])
                        self.attributes_deduplicated += int(row[1])
                    continue
                params["hint"] = _hint_for(sql.name)
                con.execute(sql.text, sql.bind(params))
            conflicts = self.db._one("SELECT count(*) FROM conflicts")
            self.conflicts += int(conflicts[0]) if conflicts else 0
            self._batch_pending = True
        except BaseException:
            self.abort()
            raise
        finally:
            for name in staged:
                con.unregister(f"staged_{name}")
        self.span_rows += batch_tables["spans"].num_rows
        self.attribute_rows += batch_tables["attributes"].num_rows

    def finish(self, decoded: DecodedSource, closing: list[Issue]) -> Committed:
        """Write the closing issues and the ledger row, and commit the source."""
        if decoded.status == "rejected":
            self.abort()
            raise ValueError("a rejected source is never written to the store")
        con, params = self.con, self.params
        acct = decoded.accounting
        acct.spans_deduplicated = self.spans_deduplicated
        acct.attributes_deduplicated = self.attributes_deduplicated
        params.update(self._ledger(decoded))
        try:
            con.register("staged_closing_issues", issues_table(closing))
            for sql in _closing_statements():
                params["hint"] = _hint_for(sql.name)
                con.execute(sql.text, sql.bind(params))
            con.commit()
            self._open = False
        except BaseException:
            self.abort()
            raise
        finally:
            con.unregister("staged_closing_issues")
        return Committed(
            self.offsets["source_id"],
            params["span_rows"],
            self.spans_deduplicated,
            self.attributes_deduplicated,
            self.conflicts,
        )

    def _ledger(self, decoded: DecodedSource) -> dict[str, Any]:
        acct = decoded.accounting
        return {
            "sha256": decoded.sha256,
            "bytes_raw": decoded.bytes_raw,
            "bytes_decoded": decoded.bytes_decoded,
            "compression": decoded.compression,
            "framing": decoded.framing,
            "encoding_flavor": decoded.encoding_flavor,
            "status": decoded.status,
            "records_read": acct.records_read,
            "records_ingested": acct.records_ingested,
            "records_other_signal": acct.records_other_signal,
            "records_quarantined": acct.records_quarantined,
            "spans_read": acct.spans_read,
            "span_rows": self.span_rows - self.spans_deduplicated,
            "spans_quarantined": acct.spans_quarantined,
            "spans_deduplicated": self.spans_deduplicated,
            "attributes_read": acct.attributes_read,
            "attribute_rows": self.attribute_rows - self.attributes_deduplicated,
            "attributes_quarantined": acct.attributes_quarantined,
            "attributes_deduplicated": self.attributes_deduplicated,
            "imported_at": datetime.now(UTC),
        }


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


def _batch_statements() -> list[sqlfiles.SqlFile]:
    return [f for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/1")]


def _closing_statements() -> list[sqlfiles.SqlFile]:
    return [f for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/9")]


def _undo_statements() -> list[sqlfiles.SqlFile]:
    undo = [f for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/5")]
    return [*undo, sqlfiles.statement(_END)]


_BEGIN = "ingest/010_begin_import.sql"
_END = "ingest/980_end_import.sql"
_MARKER = "import_in_progress"


def _hint_for(sql_name: str) -> str | None:
    if sql_name.endswith("_conflict_issues.sql"):
        return HINTS[Code.W_DUPLICATE_CONFLICT]
    if sql_name.endswith("_identical_issue.sql"):
        return HINTS[Code.I_DUPLICATE_IDENTICAL]
    return None


def open_database(
    path: str | Path | None = None, *, read_only: bool = False, memory_limit: str | None = None
) -> Database:
    """Open (creating if needed) the store at ``path`` or the default location."""
    target = Path(path) if path is not None else default_store_path()
    if read_only and not target.exists():
        raise StoreError(
            str(target), "no store here yet", "import something first: valuechain import PATH"
        )
    return Database(target, read_only=read_only, memory_limit=memory_limit)
