"""The statements every import runs over staged Arrow tables, for one source or a group of them.

A batch is what ``sql/ingest/1xx`` read as ``staged_*``: the rows of one source (a group of its
batches), or of several small sources one after another (`source_group`). Each row a source
owns carries its ``source_id``, so one pass deduplicates, checks conflicts and inserts for every
source of the batch, and counts each one's duplicates apart. The closing statements
(``9xx``) write the ledger rows, closing issues and pending derivations of one or many sources
from staged tables the same way.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any, NamedTuple

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.issues import HINTS, Code, Issue, issues_table
from valuechain.contract.ledger import Accounting, SourceLedger
from valuechain.contract.tables import PENDING_DERIVATIONS, SOURCE_ID, SOURCES, TRACE_ID
from valuechain.store import sqlfiles
from valuechain.store.database import Database

ISSUE_COUNTS = "ingest/700_source_issue_counts.sql"

# The staged tables whose rows a source owns: each carries the source's id (the others —
# attributes, large values — belong to an owner row, and so to its source).
SOURCE_TABLES = (
    "resources",
    "scopes",
    "spans",
    "events",
    "links",
    "quarantine",
    "unknown_fields",
    "issues",
)

# The batch statements that read only rows a batch usually lacks, with the input (a staged
# table, or a temporary table of ``COUNTED``) whose emptiness makes them write nothing: they are
# skipped then, as each costs a few milliseconds a batch even with nothing to do.
SKIP_WITHOUT = {
    "ingest/145_newly_conflicting.sql": "conflicts",
    "ingest/150_mark_conflicts.sql": "conflicts",
    "ingest/163_insert_events.sql": "events",
    "ingest/164_insert_links.sql": "links",
    "ingest/167_insert_large_values.sql": "large_values",
    "ingest/168_insert_quarantine.sql": "quarantine",
    "ingest/169_insert_unknown_fields.sql": "unknown_fields",
    "ingest/170_insert_issues.sql": "issues",
    "ingest/171_insert_conflict_issues.sql": "conflicts",
    "ingest/180_dedup_counts.sql": "dropped_owners",  # no dropped owner: nothing deduplicated
}
# The temporary tables whose row counts decide a skip (and count the batch's conflicts).
COUNTED = {
    "ingest/130_dropped_owners.sql": "dropped_owners",
    "ingest/140_conflicts.sql": "conflicts",
}
# a ledger row's columns: the record's scalars, then its accounting's (every one a scalar)
_LEDGER_FIELDS = [f for f in fields(SourceLedger) if f.name != "accounting"]
_ACCOUNTING_FIELDS = fields(Accounting)


class Written(NamedTuple):
    """What one staged batch wrote: its conflicting keys, and per source the spans and
    attributes that were exact duplicates (sources without any are absent)."""

    conflicts: int
    deduplicated: dict[int, tuple[int, int]]


def with_source(
    tables: Mapping[str, pa.Table], issues: list[Issue], source_id: int
) -> dict[str, pa.Table]:
    """One source's batch as the statements read it: its issues as a table, and every row it
    owns marked with its ``source_id``."""
    counts = {name: table.num_rows for name, table in tables.items()}
    return with_sources(tables, issues, source_id, [{**counts, "issues": len(issues)}])


def with_sources(
    tables: Mapping[str, pa.Table],
    issues: list[Issue],
    first_id: int,
    counts: Sequence[Mapping[str, int]],
) -> dict[str, pa.Table]:
    """Several sources' rows one after the other (``counts[k]``: the rows of source ``k`` in
    each table, issues included) as one batch: the issues as a table, and every row a source
    owns marked with its id, from ``first_id`` on (one column a table, not one a source)."""
    staged = {**tables, "issues": issues_table(issues)}
    for name in SOURCE_TABLES:
        if name in staged:
            column = _repeated(first_id, [c.get(name, 0) for c in counts])
            field = pa.field("source_id", SOURCE_ID, False)
            staged[name] = staged[name].append_column(field, column)
    return staged


def _repeated(first_id: int, counts: Sequence[int]) -> pa.Array:
    """``first_id + k`` repeated ``counts[k]`` times, for every ``k``: a run-end encoded array
    decoded by Arrow in one pass (numpy's repeat would do it too, but numpy is not a
    dependency of the base install). Empty runs are left out: run ends must increase."""
    runs = [(first_id + k, count) for k, count in enumerate(counts) if count]
    if not runs:
        return pa.array([], SOURCE_ID)
    ends = pa.array(list(itertools.accumulate(count for _, count in runs)), pa.int64())
    ids = pa.array([source_id for source_id, _ in runs], SOURCE_ID)
    return pc.run_end_decode(pa.RunEndEncodedArray.from_arrays(ends, ids))


def write_staged(db: Database, params: dict[str, Any], staged: Mapping[str, pa.Table]) -> Written:
    """Run the batch statements (``sql/ingest/1xx``) over ``staged`` in the open transaction:
    deduplication against everything stored so far (this transaction's earlier writes
    included), the conflict check, the inserts."""
    con = db.con
    conflicts, deduplicated = 0, {}
    try:
        for name, table in staged.items():
            con.register(f"staged_{name}", table)
        rows = {name: table.num_rows for name, table in staged.items()}
        for sql in _batch_statements():
            if not rows.get(SKIP_WITHOUT.get(sql.name, ""), 1):
                continue  # every row it would read is absent: it writes nothing
            if sql.name.endswith("_dedup_counts.sql"):
                found = con.execute(sql.text, sql.bind(params)).fetchall()
                deduplicated = {int(s): (int(n), int(a)) for s, n, a in found}
                continue
            params["hint"] = _hint_for(sql.name)
            cursor = con.execute(sql.text, sql.bind(params))
            if sql.name in COUNTED:  # CREATE TABLE … AS answers with its row count
                counted = cursor.fetchone()
                rows[COUNTED[sql.name]] = int(counted[0]) if counted else 0
        conflicts = rows["conflicts"]
    finally:
        _unregister(con, staged)
    return Written(conflicts, deduplicated)


def ledger_row(
    ledger: SourceLedger,
    *,
    source_id: int,
    import_id: int,
    path: str,
    rows: tuple[int, int],
    deduplicated: tuple[int, int],
) -> dict[str, Any]:
    """A source's ledger row (``contract.tables.SOURCES``): the decoder's counts plus the
    span and attribute ``rows`` this store kept of them, net of the ``deduplicated`` ones."""
    row = {f.name: getattr(ledger, f.name) for f in _LEDGER_FIELDS}  # asdict copies deep
    row.update({f.name: getattr(ledger.accounting, f.name) for f in _ACCOUNTING_FIELDS})
    return {
        **row,
        "source_id": source_id,
        "import_id": import_id,
        "path": path,
        "span_rows": rows[0] - deduplicated[0],
        "spans_deduplicated": deduplicated[0],
        "attribute_rows": rows[1] - deduplicated[1],
        "attributes_deduplicated": deduplicated[1],
        "imported_at": datetime.now(UTC),
    }


def pending_traces(traces: Mapping[int, Sequence[bytes]]) -> pa.Table:
    """The traces each source hands to the derive step, as ``staged_pending_traces``."""
    ids = [source_id for source_id, found in traces.items() for _ in found]
    flat = [trace for found in traces.values() for trace in found]
    schema = pa.schema([PENDING_DERIVATIONS.field(name) for name in ("source_id", "trace_id")])
    return pa.table([pa.array(ids, SOURCE_ID), pa.array(flat, TRACE_ID)], schema=schema)


def close_sources(
    con: duckdb.DuckDBPyConnection,
    params: dict[str, Any],
    ledger_rows: list[dict[str, Any]],
    closing: pa.Table,
    pending: pa.Table,
    analyzer: int,
    then: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
) -> dict[int, dict[str, int]]:
    """Write the sources' closing issues, identical-duplicate notes, ledger rows and pending
    derivations (``sql/ingest/9xx``) and clear the in-progress mark, run ``then`` (it writes in
    the same transaction), and read back what the store recorded of each source (``700``:
    its issues by code). The caller commits."""
    staged = {
        "sources": pa.Table.from_pylist(ledger_rows, schema=SOURCES),
        "closing_issues": closing,
        "pending_traces": pending,
    }
    params["analyzer_version"] = analyzer
    try:
        for name, table in staged.items():
            con.register(f"staged_{name}", table)
        for sql in _closing_statements():
            params["hint"] = _hint_for(sql.name)
            con.execute(sql.text, sql.bind(params))
        counts = sqlfiles.statement(ISSUE_COUNTS)
        recorded: dict[int, dict[str, int]] = {}
        found = con.execute(counts.text, counts.bind(params)).fetchall()
        for source_id, code, occurrences in found:
            recorded.setdefault(int(source_id), {})[str(code)] = int(occurrences)
        if then is not None:
            then(con)
    finally:
        _unregister(con, staged)
    return recorded


def _unregister(con: duckdb.DuckDBPyConnection, staged: Mapping[str, pa.Table]) -> None:
    """Let the staged tables go; after a failure the transaction refuses even that until it
    is rolled back (the caller does), and the failure, not this, is what to report."""
    for name in staged:
        with contextlib.suppress(duckdb.Error):
            con.unregister(f"staged_{name}")


def _batch_statements() -> list[sqlfiles.SqlFile]:
    return [f for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/1")]


def _closing_statements() -> list[sqlfiles.SqlFile]:
    return [f for f in sqlfiles.folder("ingest") if f.name.startswith("ingest/9")]


def _hint_for(sql_name: str) -> str | None:
    if sql_name.endswith("_conflict_issues.sql"):
        return HINTS[Code.W_DUPLICATE_CONFLICT]
    if sql_name.endswith("_identical_issue.sql"):
        return HINTS[Code.I_DUPLICATE_IDENTICAL]
    return None
