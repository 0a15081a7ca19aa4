"""The store's reads for the derive step (``sql/evidence``, ``sql/query/trace_runs.sql``):
which traces make which runs, and a batch of traces' spans, attributes and sources, as Arrow.

A batch's reads are bounded by its span rows, so they cost what the batch holds, not the
store. Resource attributes are the exception the store's layout makes: an import writes its
few resource rows into the row groups of its span rows, so they are copied once per derive
into a table ordered by resource (`EvidenceReads.evidence_reads`) and looked up there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.store import sqlfiles

SpanRows = tuple[int, int]  # the first and last span_row of some traces' spans
EVERY_ROW: SpanRows = (0, 2**63 - 1)

_TRACE_RUNS = "query/trace_runs.sql"
_RESOURCE_ATTRIBUTES = "evidence/000_resource_attributes.sql"
_TRIAL_SPANS = "evidence/010_trial_spans.sql"
_TRIAL_ATTRIBUTES = "evidence/020_trial_attributes.sql"
_SOURCE_DIGESTS = "evidence/030_trial_sources.sql"
_DROP_RESOURCE_ATTRIBUTES = "evidence/090_drop_resource_attributes.sql"


class EvidenceReads:
    """The derive step's reads of a `Database` (mixed in: they use its connection)."""

    con: duckdb.DuckDBPyConnection
    _resources_copied: bool = False

    def trace_runs(self) -> pa.Table:
        """Every trace (``trace_id``) with the key of its run (``run_key``) and the first and
        last span_row of its spans, ordered by run (``sql/query/trace_runs.sql``). Arrow, not
        tuples: a million traces are ~60 MB so, and several hundred as Python objects."""
        table: pa.Table = self.con.sql(sqlfiles.statement(_TRACE_RUNS).text).to_arrow_table()
        return table

    @contextlib.contextmanager
    def evidence_reads(self) -> Iterator[None]:
        """`trial_rows` calls inside share one copy of the stored resources' attributes (a
        derive's many batches); nothing may import meanwhile. Nested: the outer copy serves."""
        if self._resources_copied:
            yield
            return
        self.con.execute(sqlfiles.statement(_RESOURCE_ATTRIBUTES).text)
        self._resources_copied = True
        try:
            yield
        finally:
            self._resources_copied = False
            # a failed transaction of the caller's may refuse the drop: the copy is only this
            # connection's, and the next derive replaces it
            with contextlib.suppress(duckdb.Error):
                self.con.execute(sqlfiles.statement(_DROP_RESOURCE_ATTRIBUTES).text)

    def trial_rows(
        self, trace_ids: Iterable[str | bytes], span_rows: SpanRows = EVERY_ROW
    ) -> tuple[pa.Table, pa.Table]:
        """(spans, attributes) of the given traces, in the shapes the evidence adapter takes
        (``sql/evidence``); every file and import a trace arrived in is read, so its trials
        are rebuilt whole; the attribute rows come unordered (``evidence.frames.
        ordered_attributes`` puts them in the adapter's order). Ids are hex strings or 16 raw
        bytes each; ``span_rows`` (first, last), when known (`trace_runs`), must hold every
        span of them: the reads skip the store's other row groups."""
        ids = sorted({t.hex() if isinstance(t, bytes) else t.lower() for t in trace_ids})
        params = {"trace_ids": ids, "first_row": span_rows[0], "last_row": span_rows[1]}
        with self.evidence_reads():
            return self._arrow(_TRIAL_SPANS, params), self._arrow(_TRIAL_ATTRIBUTES, params)

    def trial_sources(self, spans: pa.Table) -> dict[int, str]:
        """source_id → sha256 (hex) of every source holding some of ``spans`` (`trial_rows`),
        for the runs of foreign traces (TRACE-FORMAT §3.8)."""
        source_ids = pc.unique(spans["source_id"]).to_pylist()
        table = self._arrow(_SOURCE_DIGESTS, {"source_ids": source_ids})
        return dict(
            zip(
                table.column("source_id").to_pylist(),
                table.column("sha256").to_pylist(),
                strict=True,
            )
        )

    def _arrow(self, name: str, params: dict[str, Any]) -> pa.Table:
        sql = sqlfiles.statement(name)
        table: pa.Table = self.con.sql(sql.text, params=sql.bind(params)).to_arrow_table()
        return table
