"""The store's public tables as Hive-partitioned Parquet that any engine reads (``export``).

Layout: ``DIR/<table>/suite_id=…/run_id=…/data_….parquet`` (chains and documents one level
deeper, ``analyzer_version=…``; import sources and their issues, which belong to no run, in
``DIR/<table>/`` itself). Each table's rows are selected in the store's own sandboxed
connection (``sql/export/1xx``) and handed as Arrow to a second, in-memory DuckDB connection
that may reach only the export's temporary folder, which writes them with ``COPY … TO …
(FORMAT parquet, PARTITION_BY …)`` (``sql/export/9xx``). The whole export is written beside
``DIR`` and renamed into place at the end, so ``DIR`` is never half an export; what an export
killed midway left there (`store.work_folders`) the next export, or ``store vacuum``, removes.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import duckdb

from valuechain.errors import Interrupted, UsageError
from valuechain.pipeline.progress import ImportProgress, Phase, Silent
from valuechain.query.funnel import run_exists
from valuechain.store import Database, sqlfiles
from valuechain.store.interrupt import interruptible, is_interruption
from valuechain.store.work_folders import (
    EXPORT_WORK_FOLDERS,
    REPLACED,
    STAGING,
    remember,
    sweep,
    work_folder,
)


class Partitioning(StrEnum):
    """How a table's rows are spread over folders (the ``sql/export/9xx`` statement)."""

    BY_RUN = "export/900_copy_by_run.sql"
    BY_RUN_ANALYZER = "export/901_copy_by_run_analyzer.sql"
    WHOLE = "export/902_copy_whole.sql"


@dataclass(frozen=True, slots=True)
class ExportTable:
    """One exported table: its folder name, the statement selecting it, its folders."""

    name: str
    select: str
    partitioning: Partitioning


def _tables(partitioning: Partitioning, *names: tuple[str, str]) -> tuple[ExportTable, ...]:
    return tuple(ExportTable(name, f"export/{file}", partitioning) for name, file in names)


RUN, ANALYZER, WHOLE = Partitioning.BY_RUN, Partitioning.BY_RUN_ANALYZER, Partitioning.WHOLE

# The span-level tables: in the folder of their trace's trial's run (none: no trial).
SPAN_TABLES = _tables(
    RUN,
    ("spans", "100_spans.sql"),
    ("attributes", "101_attributes.sql"),
    ("events", "102_events.sql"),
    ("links", "103_links.sql"),
    ("traces", "104_traces.sql"),
)
SOURCE_TABLES = _tables(WHOLE, ("imports", "110_imports.sql"), ("issues", "111_issues.sql"))
# What derivation writes per trial (the last two are the materializer's inputs).
TRIAL_TABLES = (
    *_tables(RUN, ("trials", "120_trials.sql")),
    *_tables(
        ANALYZER,
        ("stage_chain", "121_stage_chain.sql"),
        ("trial_outcome", "122_trial_outcome.sql"),
        ("stage_measurements", "123_stage_measurements.sql"),
    ),
    *_tables(
        RUN,
        ("trial_issues", "124_trial_issues.sql"),
        ("chain_disagreements", "125_chain_disagreements.sql"),
        ("setup_signals", "126_setup_signals.sql"),
        ("trial_flags", "127_trial_flags.sql"),
    ),
)
# What materialization writes per run.
RUN_TABLES = (
    *_tables(RUN, ("runs", "130_runs.sql")),
    *_tables(
        ANALYZER,
        ("analytics_documents", "131_analytics_documents.sql"),
        ("stage_funnel", "132_stage_funnel.sql"),
        ("stage_reasons", "133_stage_reasons.sql"),
        ("stage_exclusions", "134_stage_exclusions.sql"),
        ("stage_rates", "135_stage_rates.sql"),
        ("decision_summaries", "136_decision_summaries.sql"),
    ),
)
# Views over every run of a suite (`latest`): whole-store facts, not one run's.
SUITE_TABLES = _tables(
    RUN, ("suite_coverage", "140_suite_coverage.sql"), ("coverage_lint", "141_coverage_lint.sql")
)
EXPORT_TABLES = (*SPAN_TABLES, *SOURCE_TABLES, *TRIAL_TABLES, *RUN_TABLES, *SUITE_TABLES)

_PREPARE = "export/0"  # the statements naming the runs, traces and suites of an export


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """What one export wrote."""

    path: Path
    tables: tuple[str, ...]
    runs: int
    files: int
    bytes: int

    def describe(self) -> str:
        return (
            f"exported {len(self.tables)} tables of {self.runs} runs as {self.files} Parquet "
            f"files ({self.bytes:,} bytes) to {self.path}"
        )


def export_parquet(
    db: Database,
    target: str | Path,
    *,
    runs: Sequence[str] | None = None,
    overwrite: bool = False,
    tables: Sequence[ExportTable] = EXPORT_TABLES,
    progress: ImportProgress | None = None,
) -> ExportSummary:
    """Write ``tables`` of ``runs`` (None: every run) to ``target``, all or nothing.

    Raises:
        UsageError: ``target`` is the store or inside its folder of files, is not empty
            (without ``overwrite``), is a file, or a run of ``runs`` is not in the store.
    """
    out = Path(target).resolve()
    store = Path(db.path).resolve() if db.path != ":memory:" else None
    sweep(out.parent, EXPORT_WORK_FOLDERS)  # what an export killed earlier left (put back, removed)
    check_target(out, overwrite, store, "--parquet")
    for run_id in runs or ():
        if not run_exists(db.con, run_id):
            raise UsageError(
                f"--runs {run_id}", "no such run in the store", "list them: valuechain runs"
            )
    progress = progress or Silent()
    existed = out.exists()
    staging = work_folder(out, STAGING)
    if store is not None:
        remember(store, staging)  # `store vacuum` sweeps there too
    staging.mkdir(parents=True)
    try:
        count = write_tables(db.con, staging, tables, runs=runs, progress=progress)
        files, size = _files(staging)
        swap_in(staging, out)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if is_interruption(exc):
            before = "is as it was" if existed else "was not created"
            raise Interrupted(f"the partial export was removed; {out} {before}") from exc
        raise
    return ExportSummary(out, tuple(t.name for t in tables), count, files, size)


def write_tables(
    con: duckdb.DuckDBPyConnection,
    folder: Path,
    tables: Iterable[ExportTable],
    *,
    runs: Sequence[str] | None = None,
    progress: ImportProgress | None = None,
    fill_empty: bool = True,
) -> int:
    """Write ``tables`` of ``runs`` (None: all) from the store on ``con`` below ``folder``
    (which may already hold other runs' files: every partitioned file gets a fresh name); the
    number of runs written. With ``fill_empty``, a table without rows gets one schema-only
    file (`fill_empty_tables`)."""
    tables = tuple(tables)
    progress = progress or Silent()
    params = {"all_runs": runs is None, "run_ids": list(runs or ())}
    for sql in sqlfiles.folder("export"):
        if sql.name.startswith(_PREPARE):
            con.execute(sql.text, sql.bind(params))
    ((count,),) = con.execute("SELECT count(*) FROM export_runs").fetchall()
    progress.start(Phase.EXPORT, len(tables))
    writer = _writer(folder)
    try:
        for table in tables:
            _copy(con, writer, table, folder, params, table.partitioning)
            if fill_empty and not _has_files(folder / table.name):
                _copy(con, writer, table, folder, params, Partitioning.WHOLE)
            progress.advance(1)
    finally:
        writer.close()
    return int(count)


def fill_empty_tables(folder: Path, tables: Iterable[ExportTable]) -> None:
    """Give every table folder of ``tables`` below ``folder`` that holds no file one
    schema-only file (an empty store's rows), so every reader finds its columns."""
    empty = [t for t in tables if not _has_files(folder / t.name)]
    if not empty:
        return
    db = Database(":memory:")
    try:
        write_tables(db.con, folder, empty, runs=[])
    finally:
        db.close()


def _copy(
    con: duckdb.DuckDBPyConnection,
    writer: duckdb.DuckDBPyConnection,
    table: ExportTable,
    folder: Path,
    params: dict[str, object],
    partitioning: Partitioning,
) -> None:
    select = sqlfiles.statement(table.select)
    reader = con.sql(select.text, params=select.bind(params)).to_arrow_reader()
    target = folder / table.name
    if partitioning is Partitioning.WHOLE:
        target.mkdir(parents=True, exist_ok=True)
        target = target / f"data_{uuid.uuid4().hex[:12]}.parquet"
    copy = sqlfiles.statement(partitioning.value)
    writer.register("export_rows", reader)
    try:
        writer.execute(copy.text, copy.bind({"path": str(target)}))
    finally:
        writer.unregister("export_rows")


def _has_files(folder: Path) -> bool:
    return folder.is_dir() and any(p.is_file() for p in folder.rglob("*.parquet"))


def _writer(folder: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that may reach ``folder`` and nothing else (settings locked)."""
    con = interruptible(duckdb.connect(config={"threads": min(2, os.cpu_count() or 1)}))
    con.execute("SET allowed_directories = $dirs", {"dirs": [str(folder) + os.sep]})
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def check_target(out: Path, overwrite: bool, store: Path | None, option: str) -> None:
    """Refuse an output folder that is (or holds, or sits inside) the store, a file, or a
    folder that is not empty (unless ``overwrite``)."""
    where = f"{option} {out}"
    if store is not None and (out == store or store.is_relative_to(out) or _inside(out, store)):
        raise UsageError(where, "the export would overwrite or sit inside the store", _ELSEWHERE)
    if out.exists() and not out.is_dir():
        raise UsageError(where, "a file is in the way", _ELSEWHERE)
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise UsageError(
            where, "the folder is not empty", "name a new folder, or add --overwrite to replace it"
        )


def _inside(out: Path, store: Path) -> bool:
    """``out`` is inside the store's own folder of files (``STORE.tmp`` and the like)."""
    return any(out.is_relative_to(store.parent / f"{store.name}{suffix}") for suffix in _STORE_DIRS)


_STORE_DIRS = (".tmp", ".wal", ".lock")
_ELSEWHERE = "name a new folder outside the store, e.g. export/"


def swap_in(staging: Path, out: Path) -> None:
    """Rename the finished export onto ``out`` (an old one is moved aside, then removed)."""
    old = None
    if out.exists():
        old = work_folder(out, REPLACED)  # put back by `sweep` if cut short before the next
        out.rename(old)
    try:
        staging.rename(out)
    except BaseException:  # Ctrl-C between the two renames: the old one goes back
        if old is not None and not out.exists():
            old.rename(out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _files(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*.parquet") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)
