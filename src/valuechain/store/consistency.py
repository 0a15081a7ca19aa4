"""The open-time check that the import ledger and the stored spans agree.

Every accepted source's ledger row lists the spans it stored (``span_rows``); valuechain's verbs
keep the two in step, so a difference means the store was changed behind them (a DELETE from
another DuckDB client, a half-restored copy). Such a store would re-import a listed source as
``unchanged`` and report numbers over spans that are gone, so it is refused, naming what is
missing. The common case costs two counts (``sql/check/010``); the per-source comparison runs
only when they differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from valuechain.errors import StoreError
from valuechain.store import sqlfiles

_SHOWN = 3


@dataclass(frozen=True, slots=True)
class LedgerMismatch:
    """One source whose stored spans differ from its ledger row (``path`` None: unlisted)."""

    source_id: int
    path: str | None
    listed: int
    stored: int

    def describe(self) -> str:
        if self.path is None:
            return f"{_spans(self.stored)} belong to no listed source (source id {self.source_id})"
        return f"{self.path} lists {_spans(self.listed)}, {self.stored} stored"


def _spans(n: int) -> str:
    return f"{n} span" if n == 1 else f"{n} spans"


def ledger_mismatches(con: duckdb.DuckDBPyConnection) -> list[LedgerMismatch]:
    """Every source whose spans and ledger row disagree; empty for a consistent store."""
    stored, listed = con.execute(sqlfiles.statement("check/010_span_totals.sql").text).fetchall()[0]
    if stored == listed:
        return []
    rows = con.execute(sqlfiles.statement("check/020_ledger_mismatches.sql").text).fetchall()
    return [LedgerMismatch(int(i), p, int(n), int(m)) for i, p, n, m in rows]


def check_ledger(con: duckdb.DuckDBPyConnection, where: str) -> None:
    """Refuse a store whose import ledger and spans disagree, naming the sources."""
    found = ledger_mismatches(con)
    if not found:
        return
    named = "; ".join(m.describe() for m in found[:_SHOWN])
    more = f"; and {len(found) - _SHOWN} more sources" if len(found) > _SHOWN else ""
    raise StoreError(
        where,
        f"the import ledger and the stored spans disagree: {named}{more} (the store was "
        "changed outside valuechain)",
        "restore the store from a copy, or import the sources again into a new store: "
        "valuechain --store NEW.duckdb import PATHS",
    )
