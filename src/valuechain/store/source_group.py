"""Many small sources committed as one: one transaction, one pass of the ingest statements.

Committing a source costs ~25 statements and a commit, some 70 ms whatever its size; a folder
of 10,000 tiny files spent nearly all its time there (~10 files/s). `write_sources` writes a
group of whole sources as one batch — each source's rows follow the one's before it and carry
its own ``source_id`` — so each source keeps its own ledger row (path, sha256, counts), issues,
quarantine and pending derivations, and deduplicates and conflicts exactly as if imported one
after the other in that order. The group commits together or not at all. Its sources come
as runs (`SourceRun`): a source decoded alone, or consecutive documents decoded in one set of
columns (their rows a slice of the group's tables, ids counted from the group's first row).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pyarrow as pa

from valuechain.contract.issues import Issue
from valuechain.contract.ledger import SourceLedger
from valuechain.contract.tables.rows import rebase
from valuechain.store import sqlfiles
from valuechain.store.arrow_groups import concatenated
from valuechain.store.database import BEGIN_IMPORT, Database
from valuechain.store.staged_writes import (
    close_sources,
    ledger_row,
    pending_traces,
    with_sources,
    write_staged,
)
from valuechain.store.writer import CARRIED_MAPS, Committed

_STORED_HASHES = "ingest/023_stored_sha256s.sql"
_ROW_TABLES = ("resources", "scopes", "spans", "events", "links", "large_values")


@dataclass(frozen=True, slots=True)
class GroupSource:
    """One decoded source of a group: its ledger record, issues (span rows its own) and the
    rows it has in each table of its run."""

    path: str
    rows: dict[str, int]
    issues: list[Issue]
    closing: list[Issue]  # source-level and aggregated issues, written after its rows
    ledger: SourceLedger
    trace_ids: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class SourceRun:
    """Sources decoded together, one after another: their rows in ``tables``, whose row ids
    count from ``base`` (per table; absent: 0) — a source decoded alone, or a run of the
    small documents a group decoded in one set of columns (``ingest.source.documents``)."""

    tables: dict[str, pa.Table]
    sources: list[GroupSource]
    base: dict[str, int] = field(default_factory=dict)


def whole_source(
    path: str,
    tables: dict[str, pa.Table],
    issues: list[Issue],
    closing: list[Issue],
    ledger: SourceLedger,
    trace_ids: tuple[bytes, ...],
) -> SourceRun:
    """One source decoded on its own (source-local row ids), as a run of its own."""
    rows = {name: table.num_rows for name, table in tables.items()}
    return SourceRun(tables, [GroupSource(path, rows, issues, closing, ledger, trace_ids)])


def stored_sha256s(db: Database, hashes: Sequence[str]) -> set[str]:
    """Which of ``hashes`` the ledger holds already (one query for a whole group)."""
    sql = sqlfiles.statement(_STORED_HASHES)
    return {str(h) for (h,) in db.con.execute(sql.text, {"hashes": list(hashes)}).fetchall()}


def write_sources(
    db: Database, import_id: int, runs: Sequence[SourceRun], analyzer: int
) -> list[Committed]:
    """Commit the sources of ``runs`` in one transaction, in order; what each one committed."""
    con = db.con
    con.begin()
    try:
        offsets = db.next_rows()
        first = offsets["source_id"]
        params = {**offsets, "hint": None, "import_id": import_id}
        begin = sqlfiles.statement(BEGIN_IMPORT)  # cleared by the closing statements
        con.execute(begin.text, {"marker": json.dumps(offsets, sort_keys=True)})
        for carried in CARRIED_MAPS:  # no source here goes on from a group before
            con.execute(sqlfiles.statement(carried).text)
        batches, issues, closing, closing_counts = [], [], [], []
        counts: list[dict[str, int]] = []
        rows = dict.fromkeys(_ROW_TABLES, 0)  # the group's rows before each source
        sources: list[GroupSource] = []
        for run in runs:
            shift = {name: rows[name] - run.base.get(name, 0) for name in _ROW_TABLES}
            batches.append(rebase(run.tables, shift, 0))
            for source in run.sources:
                issues += [_moved(issue, rows["spans"]) for issue in source.issues]
                closing += [_moved(issue, rows["spans"]) for issue in source.closing]
                counts.append({**source.rows, "issues": len(source.issues)})
                closing_counts.append({"issues": len(source.closing)})
                for name in _ROW_TABLES:
                    rows[name] += source.rows.get(name, 0)
                sources.append(source)
        written = write_staged(
            db, params, with_sources(concatenated(batches), issues, first, counts)
        )
        ledger = [
            ledger_row(
                source.ledger,
                source_id=first + k,
                import_id=import_id,
                path=source.path,
                rows=(source.rows.get("spans", 0), source.rows.get("attributes", 0)),
                deduplicated=written.deduplicated.get(first + k, (0, 0)),
            )
            for k, source in enumerate(sources)
        ]
        traces = {first + k: source.trace_ids for k, source in enumerate(sources)}
        recorded = close_sources(
            con,
            params,
            ledger,
            with_sources({}, closing, first, closing_counts)["issues"],
            pending_traces(traces),
            analyzer,
        )
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return [
        Committed(
            row["source_id"],
            row["span_rows"],
            row["spans_deduplicated"],
            row["attributes_deduplicated"],
            0,  # conflicts are counted per batch; each source's are among its issues
            recorded.get(row["source_id"], {}),
        )
        for row in ledger
    ]


def _moved(issue: Issue, spans_before: int) -> Issue:
    """The issue with its span row counted from the group's first span, not its source's."""
    if issue.span_row is None or not spans_before:
        return issue
    return replace(issue, span_row=issue.span_row + spans_before)
