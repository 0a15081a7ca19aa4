"""One source's import, a group of batches at a time: bounded memory, all or nothing
(``SourceWriter``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import duckdb
import pyarrow as pa

from valuechain.contract.issues import Issue
from valuechain.contract.ledger import SourceLedger
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.store import sqlfiles
from valuechain.store.arrow_groups import concatenated
from valuechain.store.database import BEGIN_IMPORT, Database
from valuechain.store.staged_writes import (
    ISSUE_COUNTS,
    close_sources,
    ledger_row,
    pending_traces,
    with_source,
    write_staged,
)

__all__ = ["COMMIT_ROWS", "ISSUE_COUNTS", "Committed", "SourceWriter"]


@dataclass(frozen=True, slots=True)
class Committed:
    """What committing one source wrote."""

    source_id: int
    span_rows: int
    spans_deduplicated: int
    attributes_deduplicated: int
    conflicts: int
    issue_counts: dict[str, int] = field(default_factory=dict)  # by code, as stored


class SourceWriter:
    """One source's import: ``gather`` each batch in order, then ``finish`` (or leave the ``with``
    block with an exception, which undoes everything: a rejected or failed source leaves the
    store exactly as it was).

    Batches are gathered until they hold ``COMMIT_ROWS`` rows, then written as one; each
    group is committed when the next batch arrives, so memory stays bounded however large the
    source is (one transaction holding a whole multi-gigabyte source keeps it all in memory),
    while a source smaller than that is still one transaction. Atomicity comes from an
    in-progress mark written first with the row ids the source starts from: until ``finish``
    writes the ledger row and clears the mark, ``abort`` — or, after a crash, the next writable
    open of the store — deletes every row from those offsets on (``sql/ingest/5xx``). Batches
    carry source-local row ids (``ingest.source.merge.rebase``), so a group of them is one
    batch as well. Each group runs the ``sql/ingest/1xx`` statements (deduplication against
    everything stored so far, this source's earlier groups included, then the inserts);
    ``finish`` writes the last group, the closing issues, the ledger row and, with it, the
    source's traces as awaiting derivation (``9xx``): a derive that never runs (a crash, a
    failing later source) stays recorded; then it reads back what the store recorded about the
    source (``700``: its issues by code).
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
        self._gathered: list[dict[str, pa.Table]] = []  # batches added, not yet written
        self._gathered_issues: list[Issue] = []
        self._gathered_rows = 0  # their rows (every table's) and issues
        self._group_pending = False  # the open transaction holds a group not yet committed
        self._committed = False  # some of this source is committed: undoing needs deletes

    def __enter__(self) -> SourceWriter:
        self.con.begin()
        try:
            self.offsets = self.db.next_rows()
            self.params = {
                **self.offsets,
                "hint": None,
                "import_id": self.import_id,
                "path": self.path,
            }
            begin = sqlfiles.statement(BEGIN_IMPORT)
            self.con.execute(begin.text, {"marker": json.dumps(self.offsets, sort_keys=True)})
            for carried in CARRIED_MAPS:  # nothing carried into the source's first group
                self.con.execute(sqlfiles.statement(carried).text)
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
            self.db.undo_import(self.offsets)

    def gather(self, batch_tables: dict[str, pa.Table], issues: list[Issue]) -> None:
        """Gather one batch, committing the group written before it; once the batches gathered
        hold ``COMMIT_ROWS`` rows, write them as one (deduplicated, with their issues)."""
        if not self._open:
            raise RuntimeError("the source's import is over; start a new writer")
        if self._group_pending:  # more is coming: the transaction need not hold it any longer
            try:
                self.con.commit()
                self._committed = True
                self._group_pending = False
                self.con.begin()
            except BaseException:
                self.abort()
                raise
        self._gathered.append(dict(batch_tables))  # emptied when written
        self._gathered_issues.extend(issues)
        self._gathered_rows += len(issues) + sum(t.num_rows for t in batch_tables.values())
        if self._gathered_rows >= COMMIT_ROWS:
            self._write_gathered()

    def _write_gathered(self) -> None:
        """Write the gathered batches as one batch (their row ids are source-local, so they
        follow one another)."""
        batch_tables = concatenated(self._gathered)
        issues = self._gathered_issues
        self._gathered, self._gathered_issues, self._gathered_rows = [], [], 0
        staged = with_source(batch_tables, issues, self.offsets["source_id"])
        try:
            written = write_staged(self.db, self.params, staged)
            self._group_pending = True
        except BaseException:
            self.abort()
            raise
        self.conflicts += written.conflicts
        spans, attributes = written.deduplicated.get(self.offsets["source_id"], (0, 0))
        self.spans_deduplicated += spans
        self.attributes_deduplicated += attributes
        self.span_rows += batch_tables["spans"].num_rows
        self.attribute_rows += batch_tables["attributes"].num_rows

    def finish(
        self,
        ledger: SourceLedger,
        closing: list[Issue],
        trace_ids: Sequence[bytes] = (),
        analyzer: int = STAGE_ANALYZER_VERSION,
        *,
        then: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
    ) -> Committed:
        """Write the closing issues and the ledger row, record the source's ``trace_ids`` as
        awaiting derivation at ``analyzer``, run ``then`` (it writes in the same
        transaction), and commit the source."""
        if ledger.status == "rejected":
            self.abort()
            raise ValueError("a rejected source is never written to the store")
        if self._gathered:  # the last group: committed with the ledger row
            self._write_gathered()
        source_id = self.offsets["source_id"]
        row = ledger_row(
            ledger,
            source_id=source_id,
            import_id=self.import_id,
            path=self.path,  # named once the bytes are read (a pipe: by its hash)
            rows=(self.span_rows, self.attribute_rows),
            deduplicated=(self.spans_deduplicated, self.attributes_deduplicated),
        )
        try:
            recorded = close_sources(
                self.con,
                self.params,
                [row],
                with_source({}, closing, source_id)["issues"],
                pending_traces({source_id: trace_ids}),
                analyzer,
                then,
            )
            self.con.commit()
            self._open = False
        except BaseException:
            self.abort()
            raise
        return Committed(
            source_id,
            row["span_rows"],
            self.spans_deduplicated,
            self.attributes_deduplicated,
            self.conflicts,
            recorded.get(source_id, {}),
        )


# Rows (of every table, issues included) of the batches written and committed together. A
# batch of ~8 MB holds ~100k rows, under one 122,880-row row group: written one by one, every
# row goes through the write-ahead log, each checkpoint rewrites the last, partly filled row
# group, and each of the ~15 statements costs its milliseconds once per batch. Written in
# groups of 400k rows (4 batches), in one Arrow chunk per table, DuckDB writes whole row
# groups: a 212 MB NDJSON source is written in ~3.2 CPU s instead of ~6 (a batch at a time);
# groups of 300k rows still pay the write-ahead log (~4.1). At 400k a group's spans (~1/8 of
# its rows) still went through the log and the checkpoints; at a million they fill a row group
# too: that import took 5.4 % less wall time, its final checkpoint 0.09 s instead of 0.33-0.43.
# Memory: the gathered batches, and a transaction holding one group (a 2 GB import's peak:
# 1,164 MB RSS at 400k, 1,231 at a million). Tests that need a write and a commit per batch
# from a small source set it to 1.
COMMIT_ROWS = 1_000_000

# The resource and scope rows a group may refer to from the group before (a document cut
# inside an item), emptied when a source begins.
CARRIED_MAPS = ("ingest/030_carried_resource_map.sql", "ingest/031_carried_scope_map.sql")
