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
from typing import TYPE_CHECKING, Any

import duckdb

from valuechain.store import sqlfiles

if TYPE_CHECKING:
    import pyarrow as pa

# The share of the stored trials above which touched traces are widened to runs from the list
# of every trace (one pass) rather than found run by run (two passes over each touched trace).
WHOLE_LIST_SHARE = 0.25
SpanRows = tuple[int, int]  # the first and last span_row of some traces' spans
EVERY_ROW: SpanRows = (0, 2**63 - 1)

_TRACE_RUNS = "query/trace_runs.sql"
_RUN_MEMBERS = "query/run_members.sql"
_STORED_TRIALS = "query/stored_trials.sql"
_RESOURCE_ATTRIBUTES = "evidence/000_resource_attributes.sql"
_TRIAL_SPANS = "evidence/010_trial_spans.sql"
_TRIAL_ATTRIBUTES = "evidence/020_trial_attributes.sql"
_SOURCE_DIGESTS = "evidence/030_trial_sources.sql"
_DROP_RESOURCE_ATTRIBUTES = "evidence/090_drop_resource_attributes.sql"


class EvidenceReads:
    """The derive step's reads of a `Database` (mixed in: they use its connection)."""

    con: duckdb.DuckDBPyConnection
    _resources_copied: bool = False

    def trace_runs(self, touched: Iterable[bytes] | None = None) -> pa.Table:
        """Every trace (``trace_id``) with the key of its run (``run_key``) and the first and
        last span_row of its spans, ordered by run (``sql/query/trace_runs.sql``). Arrow, not
        tuples: a million traces are ~60 MB so, and several hundred as Python objects.

        With ``touched``, only the traces of the runs those traces belong to (`of_runs`). When
        they are a small share of the store, they are found without reading every trace's run
        (`sql/query/run_members.sql`), so a derive after a small import costs what it brings:
        at 1M stored traces, 0.07 s for 100 touched ones instead of 2 s. Each touched trace
        costs ~3 µs a pass (two passes) against ~2 µs a stored trace for the whole list."""
        import pyarrow as pa  # here: opening a store loads no engine but DuckDB
        import pyarrow.compute as pc

        if touched is None:
            return self._traces_of(None)
        traces = pa.array(touched, pa.binary())
        if len(traces) > WHOLE_LIST_SHARE * self._stored_trials():
            return of_runs(self._traces_of(None), traces)
        own = self._traces_of(traces)
        keys = pc.unique(own["run_key"])
        if len(keys) == 0:
            return own
        members = self._arrow(_RUN_MEMBERS, {"run_keys": keys.to_pylist()})["trace_id"]
        wanted = pc.unique(pa.chunked_array([own["trace_id"], members.cast(pa.binary())]))
        return of_runs(self._traces_of(wanted), traces)

    def _stored_trials(self) -> int:
        ((count,),) = self.con.execute(sqlfiles.statement(_STORED_TRIALS).text).fetchall()
        return int(count)

    def _traces_of(self, traces: pa.Array | pa.ChunkedArray | None) -> pa.Table:
        import pyarrow as pa

        wanted = pa.table({"trace_id": traces if traces is not None else pa.array([], pa.binary())})
        self.con.register("wanted_traces", wanted)
        try:
            return self._arrow(_TRACE_RUNS, {"every": traces is None})
        finally:
            self.con.unregister("wanted_traces")

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
        import pyarrow.compute as pc

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


def of_runs(trace_runs: pa.Table, touched: pa.Array | Iterable[bytes]) -> pa.Table:
    """The rows of ``trace_runs`` (`EvidenceReads.trace_runs`) whose run holds one of the
    ``touched`` traces: every trace of those runs, so run-level facts (incomplete runs, id
    conflicts) see the whole run."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = pc.is_in(trace_runs["trace_id"], pa.array(touched, pa.binary()))
    keys = pc.unique(trace_runs.filter(wanted)["run_key"])
    return trace_runs.filter(pc.is_in(trace_runs["run_key"], keys))
