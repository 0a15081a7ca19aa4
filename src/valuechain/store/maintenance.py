"""Looking after a store's file: what it holds (``info``) and reclaiming space (``vacuum``).

DuckDB reuses the blocks that deletes free but never gives them back to the file system, so
``vacuum`` copies the store into a new file beside it (every table, view and macro), checks
the copy opens as a consistent store, and only then swaps it in: an interruption leaves the
old file as it was. The file sizes before and after are what it reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import duckdb

from valuechain.contract.words import number, plural
from valuechain.errors import StoreError
from valuechain.store import lock, migrate, sqlfiles
from valuechain.store.database import Database, log_operation
from valuechain.store.files import (
    file_size,
    replace_durably,
    store_bytes,
    wal_path,
    work_file,
)
from valuechain.store.sandbox import STORAGE_COMPATIBILITY, connect
from valuechain.store.work_folders import EXPORT_WORK_FOLDERS, sweep_remembered


@dataclass(frozen=True, slots=True)
class StoreInfo:
    """What ``valuechain store info`` shows."""

    path: str
    file_bytes: int
    wal_bytes: int
    meta: dict[str, str]
    summary: dict[str, Any]
    analyzers: list[dict[str, Any]]  # kind, source, analyzerVersion, count
    tables: dict[str, int]  # rows by stored table
    sources: list[dict[str, Any]] = field(default_factory=list)  # newest first
    runs: list[dict[str, Any]] = field(default_factory=list)


def store_info(con: duckdb.DuckDBPyConnection, path: str, *, limit: int = 20) -> StoreInfo:
    """Schema version, analyzer versions present, sizes, rows by table, runs and sources."""

    def rows(name: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        sql = sqlfiles.statement(f"store/{name}")
        return con.execute(sql.text, sql.bind(params or {})).fetchall()

    tables = {
        str(name): int(rows("301_info_table_rows.sql", {"table": f"core.{name}"})[0][0])
        for (name,) in rows("300_info_tables.sql")
    }
    cursor = con.execute(sqlfiles.statement("store/304_info_summary.sql").text)
    names = [d[0] for d in cursor.description]
    summary = dict(zip(names, cursor.fetchall()[0], strict=True))
    return StoreInfo(
        path=path,
        file_bytes=file_size(Path(path)),
        wal_bytes=file_size(wal_path(Path(path))),
        meta={str(k): str(v) for k, v in rows("302_info_meta.sql")},
        summary=summary,
        analyzers=[
            {"kind": k, "source": s, "analyzerVersion": int(v), "count": int(n)}
            for k, s, v, n in rows("303_info_analyzers.sql")
        ],
        tables=tables,
        sources=[
            {
                "path": p,
                "sha256": h,
                "status": st,
                "spans": int(n),
                "bytes": int(b),
                "importedAt": at,
            }
            for p, h, st, n, b, at in rows("305_info_sources.sql", {"limit": limit})
        ],
        runs=[
            {"runId": r, "suiteId": s, "trials": int(t), "traces": int(n)}
            for r, s, t, n in rows("306_info_runs.sql", {"limit": limit})
        ],
    )


@dataclass(frozen=True, slots=True)
class Vacuum:
    """The store's size before and after a vacuum (file and write-ahead log)."""

    before: int
    after: int
    dry_run: bool = False
    swept: tuple[str, ...] = ()  # work folders that exports killed midway left behind

    def describe(self) -> str:
        if self.dry_run:
            return (
                f"the store takes {plural(self.before, 'byte')}; vacuum would copy it into a new "
                "file and keep only the blocks in use (nothing was changed)"
            )
        saved = self.before - self.after
        if saved <= 0:
            said = (
                f"{plural(self.before, 'byte')} before, {number(self.after)} after "
                "(nothing to reclaim)"
            )
        else:
            said = (
                f"{plural(self.before, 'byte')} before, {number(self.after)} after "
                f"({plural(saved, 'byte')} reclaimed)"
            )
        if self.swept:
            said += (
                f"; removed {plural(len(self.swept), 'folder')} an interrupted export left behind"
            )
        return said


def vacuum_file(path: Path, memory_limit: str, verify: Callable[[Path], None]) -> Vacuum:
    """Copy the (checkpointed) store at ``path`` into a compact new file, ``verify`` the copy
    (it raises when the copy is no consistent store), then swap it in — all while holding the
    store open, so no other process writes to it in between."""
    before = store_bytes(path)
    with work_file(
        path,
        "vacuum",
        "vacuum failed",
        "free disk space (vacuum needs room for a copy of the store) and run it again",
    ) as work:
        # the store stays open (and locked against other processes) until the copy is in
        con = lock.connect(  # held by another process: "store is busy (pid …)"
            str(path),
            read_only=False,
            config={"storage_compatibility_version": STORAGE_COMPATIBILITY},
        )
        try:
            con.execute("SET memory_limit = $m", {"m": memory_limit})
            name = str(con.execute("SELECT current_database()").fetchall()[0][0])
            con.execute("ATTACH $p AS vc_new", {"p": str(work)})
            con.execute(f'COPY FROM DATABASE "{name}" TO vc_new')
            con.execute("CHECKPOINT vc_new")
            con.execute("DETACH vc_new")
            verify(work)
            replace_durably(work, path)
        finally:
            con.close()
    return Vacuum(before, store_bytes(path))


@dataclass(frozen=True, slots=True)
class Migration:
    """What ``valuechain store migrate`` did (or, with ``dry_run``, would do)."""

    plan: migrate.MigrationPlan
    dry_run: bool
    backup: str | None = None

    def describe(self) -> str:
        p = self.plan
        if not p.needed:
            return f"the store is at schema version {p.to_version} already: nothing to do"
        scripts = ", ".join(p.scripts) or "no scripts, only new tables and views"
        if self.dry_run:
            return (
                f"would migrate the store from schema version {p.from_version} to "
                f"{p.to_version} on a copy that replaces it once complete ({scripts}); "
                "nothing was changed"
            )
        kept = f"; the old file is kept as {self.backup}" if self.backup else ""
        return (
            f"migrated the store from schema version {p.from_version} to {p.to_version} "
            f"({scripts}){kept}"
        )


def migrate_store(
    path: Path, *, memory_limit: str, dry_run: bool = False, backup: bool = True
) -> Migration:
    """Bring the store at ``path`` to this valuechain's schema version, safely (a copy is
    migrated and swapped in; ``backup`` keeps the old file beside it as ``NAME.vN.bak``)."""
    if not path.exists():
        raise StoreError(str(path), "no store here", "check --store or $VALUECHAIN_STORE")
    con = connect(path, read_only=True, memory_limit=memory_limit)
    try:
        plan = migrate.plan(con, str(path))
    finally:
        con.close()
    if dry_run or not plan.needed:
        return Migration(plan, dry_run)
    kept = path.with_name(f"{path.name}.v{plan.from_version}.bak") if backup else None
    # The log row is written into the migrated copy, so it arrives with the swap: a kill
    # after the swap can leave no migrated store without its record.
    details = {"from": plan.from_version, "to": plan.to_version}
    con = connect(path, read_only=False, memory_limit=memory_limit)
    try:  # held open (and locked against other processes) until the copy is in
        con.execute("CHECKPOINT")
        reconnect = partial(connect, read_only=False, memory_limit=memory_limit)
        log = partial(log_operation, operation="migrate", target=None, details=details)
        migrate.migrate_file(path, plan.from_version, reconnect, backup=kept, finish=log)
    finally:
        con.close()
    with Database(path, memory_limit=memory_limit):  # undoes an interrupted import, checks
        pass
    return Migration(plan, False, str(kept) if kept else None)


def vacuum_store(path: Path, *, memory_limit: str, dry_run: bool = False) -> Vacuum:
    """Reclaim the space deletes freed: the store is copied compactly and swapped in."""
    with Database(path, memory_limit=memory_limit) as db:  # undoes an interrupted import
        db.con.execute("CHECKPOINT")
        # open for writing, so no export of the store runs: what its exports left is stale
        swept = () if dry_run else sweep_remembered(path.resolve(), EXPORT_WORK_FOLDERS)
    if dry_run:
        return Vacuum(store_bytes(path), store_bytes(path), dry_run=True)

    def verify(work: Path) -> None:
        with Database(work, memory_limit=memory_limit) as copy:
            copy.log_operation("vacuum", None, {"bytesBefore": store_bytes(path)})
            copy.con.execute("CHECKPOINT")

    done = vacuum_file(path, memory_limit, verify)
    return Vacuum(done.before, done.after, swept=tuple(str(p) for p in swept))
