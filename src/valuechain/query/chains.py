"""Where the producer's persisted chains and valuechain's derived ones disagree (``verify``).

Only trials carrying both chains are compared (view ``chain_disagreements``); the count of
trials with a producer chain says how many were.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from valuechain.query.statements import query_frame, query_rows


@dataclass(frozen=True, slots=True)
class ChainDisagreements:
    """The stages that differ, and how many trials were compared."""

    rows: pl.DataFrame  # one row per (trial, derived analyzer version, stage) that differs
    compared: int  # trials carrying a producer chain

    @property
    def trials(self) -> int:
        """How many trials disagree somewhere."""
        return self.rows["trial_id"].n_unique() if self.rows.height else 0


def chain_disagreements(
    con: duckdb.DuckDBPyConnection, run_id: str | None = None
) -> ChainDisagreements:
    """The disagreements of ``run_id`` (None: every run), in run, trial and stage order."""
    params = {"run": run_id}
    rows = query_frame(con, "query/chain_disagreements.sql", params)
    (compared,) = query_rows(con, "query/producer_chain_trials.sql", params)
    return ChainDisagreements(rows, int(compared["n"]))
