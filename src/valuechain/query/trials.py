"""A run's trials and where each stopped: the path from a verdict or a funnel to the trial."""

from __future__ import annotations

import duckdb
import polars as pl

from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import UsageError
from valuechain.query.funnel import run_exists
from valuechain.query.statements import query_frame


def run_trials(
    con: duckdb.DuckDBPyConnection,
    run: str,
    *,
    case: str | None = None,
    state: str | None = None,
    stage: str | None = None,
    analyzer: int | None = None,
) -> pl.DataFrame:
    """One row per trial of ``run`` (derived chains): case, variant, repetition, the first
    failed link with its reason and category. ``state`` keeps the trials with a link in that
    state (``stage``: that link); ``stage`` alone keeps those whose first failed link it is.
    ``case`` is a case id, key or title."""
    if not run_exists(con, run):
        raise UsageError(
            f"run {run}", "no such run in this store", "list the runs: valuechain runs"
        )
    frame = query_frame(
        con,
        "query/run_trials.sql",
        {
            "run_id": run,
            "case": case,
            "state": state,
            "stage": stage,
            "first_failed": stage is not None and state is None,
            "analyzer": STAGE_ANALYZER_VERSION if analyzer is None else analyzer,
        },
    )
    return frame if stage is not None else frame.drop("stage_state", "stage_reason")
