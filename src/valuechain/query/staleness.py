"""What a recompute would touch (``sql/recompute/0xx``): stale traces, chains ahead, flips.

Reads only; ``pipeline/recompute.py`` decides and writes. A trace is stale for a target
analyzer when its evidence changed since it was derived or a trial of it has derived chains
only at older versions (``core.stale_traces``, ``sql/views/130``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import polars as pl
import pyarrow as pa

from valuechain.query.statements import query_frame, query_rows


@dataclass(frozen=True, slots=True)
class StaleTrace:
    """One trace to re-derive, and why."""

    trace_id: bytes
    evidence_changed: bool
    trials_behind: int
    run_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AheadRows:
    """Derived rows stamped with an analyzer newer than this valuechain's."""

    what: str
    version: int
    count: int


def versions_ahead(con: duckdb.DuckDBPyConnection, current: int) -> list[AheadRows]:
    """Derived chains and documents newer than ``current`` (empty when there are none)."""
    rows = query_rows(con, "recompute/010_versions_ahead.sql", {"current": current})
    return [AheadRows(str(r["what"]), int(r["version"]), int(r["count"])) for r in rows]


def stale_traces(con: duckdb.DuckDBPyConnection, target: int) -> list[StaleTrace]:
    """Every trace whose derived chains are stale for ``target``, by trace id."""
    rows = query_rows(con, "recompute/020_stale_traces.sql", {"target": target})
    return [
        StaleTrace(
            bytes(r["trace_id"]),
            bool(r["evidence_changed"]),
            int(r["trials_behind"]),
            tuple(r["run_ids"]),
        )
        for r in rows
    ]


def state_flips(
    con: duckdb.DuckDBPyConnection, staged_chain: pa.Table, target: int
) -> tuple[pl.DataFrame, int]:
    """(stage rows whose state or reason would change, by stage and both states and reasons;
    trials that would get their first derived chain) for staged chains at ``target``."""
    con.register("staged_chain", staged_chain)
    try:
        flips = query_frame(con, "recompute/030_state_flips.sql", {"target": target})
        new = query_rows(con, "recompute/040_new_chains.sql", {"target": target})
    finally:
        con.unregister("staged_chain")
    return flips, int(new[0]["trials"])


def prunable(
    con: duckdb.DuckDBPyConnection, target: int, run_ids: Sequence[str] | None
) -> pl.DataFrame:
    """Trials per (run, old analyzer version) that ``--prune`` would drop."""
    params = {"target": target, "all_runs": run_ids is None, "run_ids": list(run_ids or ())}
    return query_frame(con, "recompute/050_prunable.sql", params)
