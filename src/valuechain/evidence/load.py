"""The I/O edge of the evidence adapter: span and attribute rows of a set of traces.

Runs `sql/evidence/*.sql` (one statement per file, `$trace_ids` bound, never formatted) on
the store's DuckDB connection and returns Arrow tables in the shapes `build_trials` takes
(see `evidence.frames`). Spans of one trace may have arrived in several files and imports;
all of them are read, so a trace's trials are rebuilt whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import pyarrow as pa

from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.sqlfiles import SqlFile, statement

SPANS_SQL = "evidence/010_trial_spans.sql"
ATTRIBUTES_SQL = "evidence/020_trial_attributes.sql"
SOURCES_SQL = "evidence/030_trial_sources.sql"


class Store(Protocol):
    """What the loader needs of `valuechain.store.Database`: its DuckDB connection."""

    @property
    def con(self) -> Any: ...


def _hex_ids(trace_ids: Iterable[str | bytes]) -> list[str]:
    return sorted({t.hex() if isinstance(t, bytes) else t.lower() for t in trace_ids})


def _arrow(db: Store, sql: SqlFile, trace_ids: list[str]) -> pa.Table:
    relation = db.con.sql(sql.text, params=sql.bind({"trace_ids": trace_ids}))
    table: pa.Table = relation.to_arrow_table()
    return table


def load_trial_rows(db: Store, trace_ids: Iterable[str | bytes]) -> tuple[pa.Table, pa.Table]:
    """(spans, attributes) of the given traces (hex strings or 16 raw bytes each)."""
    ids = _hex_ids(trace_ids)
    return _arrow(db, statement(SPANS_SQL), ids), _arrow(db, statement(ATTRIBUTES_SQL), ids)


def load_source_runs(db: Store, trace_ids: Iterable[str | bytes]) -> dict[int, str]:
    """source_id → sha256 (hex) of every source that holds spans of the traces (§3.8)."""
    table = _arrow(db, statement(SOURCES_SQL), _hex_ids(trace_ids))
    return dict(
        zip(table.column("source_id").to_pylist(), table.column("sha256").to_pylist(), strict=True)
    )


def load_trials(db: Store, trace_ids: Iterable[str | bytes]) -> TrialEvidence:
    """`build_trials` over the stored rows of the given traces."""
    ids = _hex_ids(trace_ids)
    spans, attributes = load_trial_rows(db, ids)
    return build_trials(spans, attributes, source_runs=load_source_runs(db, ids))
