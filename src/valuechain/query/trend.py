"""Read trends: runs partitioned by their parity keys, rates per stage over time (issue 13).

The series come from the view ``stage_trend`` (one run's own tally per row, never a sum across
runs, CONTRACT §5.8); the runs that join no partition come with their blockers from the parity
macro (§5.11), and the runs without a document of the kind read are named as unmeasured
(§5.10). Which documents are read (DESIGN.md): derived chains at the current analyzer unless
``chains`` / ``analyzer`` say otherwise — never a mix.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

import duckdb
import polars as pl

from valuechain.contract.vocab import SliceDimension, Stage
from valuechain.errors import UsageError
from valuechain.query.funnel import document_key
from valuechain.query.producer_hints import identity_hint, sdk_runs
from valuechain.query.statements import view_frame

TREND_SLICES: Final[tuple[str, ...]] = tuple(d.value for d in SliceDimension)
PARTITION_KEY: Final[tuple[str, ...]] = (
    "run_group_id",
    "config_revision",
    "case_set_fingerprint",
    "stage_analyzer_version",
    "measurements_schema_version",
)


@dataclass(frozen=True, slots=True)
class TrendRequest:
    """What a trend reads: one document kind, one slice dimension, optional filters."""

    chain_source: str
    analyzer_version: int
    slice_dimension: str
    stage: str | None
    suite_id: str | None
    since: dt.datetime | None

    def params(self) -> dict[str, object]:
        return {
            "chain_source": self.chain_source,
            "analyzer_version": self.analyzer_version,
            "slice_dimension": self.slice_dimension,
            "stage": self.stage,
            "suite_id": self.suite_id,
            "since": self.since,
        }


def parse_since(since: dt.date | dt.datetime | str | None) -> dt.datetime | None:
    """A moment from a date (midnight UTC), a datetime (naive means UTC) or ISO-8601 text."""
    if since is None or isinstance(since, dt.datetime):
        moment = since
    elif isinstance(since, dt.date):
        moment = dt.datetime.combine(since, dt.time())
    else:
        try:
            moment = dt.datetime.fromisoformat(since.strip())
        except ValueError:
            raise UsageError(
                f"since={since!r}", "not a date", "use YYYY-MM-DD or an ISO-8601 time"
            ) from None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment


def trend_request(
    *,
    suite: str | None = None,
    stage: str | None = None,
    slice: str = "overall",
    since: dt.date | dt.datetime | str | None = None,
    chains: str = "derived",
    analyzer: int | None = None,
) -> TrendRequest:
    """Check the arguments once; a bad one is a `UsageError` naming it."""
    if slice not in TREND_SLICES:
        raise UsageError(
            f"slice={slice!r}", "unknown slice dimension", f"use one of {', '.join(TREND_SLICES)}"
        )
    if stage is not None and stage not in {s.value for s in Stage}:
        raise UsageError(
            f"stage={stage!r}", "unknown stage", f"use one of {', '.join(s.value for s in Stage)}"
        )
    source, version = document_key(chains, analyzer)
    return TrendRequest(source, version, slice, stage, suite, parse_since(since))


def _frame(con: duckdb.DuckDBPyConnection, name: str, request: TrendRequest) -> pl.DataFrame:
    return view_frame(con, name, request.params(), "a view the trend reads is")


def trend_frame(con: duckdb.DuckDBPyConnection, request: TrendRequest) -> pl.DataFrame:
    """The ``stage_trend`` rows asked for: partitions in key order, runs by completion."""
    return _frame(con, "query/trend.sql", request)


def runs_outside_partitions(con: duckdb.DuckDBPyConnection, request: TrendRequest) -> pl.DataFrame:
    """The runs matching the filters that join no partition, by completion then run id:
    ``blockers`` lists why (§5.11 order), or is NULL for a run without a document of this
    kind (unmeasured, with ``document_blocker`` when the store knows why). ``hint`` names the
    MCPJam SDK option that would supply a missing identity, for runs read from SDK results
    (`producer_hints`); NULL for every other run."""
    outside = _frame(con, "query/trend_outside.sql", request)
    blocked = outside.filter(pl.col("blockers").is_not_null())
    sdk = sdk_runs(con, blocked["run_id"].to_list())
    hints = {
        row["run_id"]: identity_hint(row["blockers"])
        for row in blocked.iter_rows(named=True)
        if row["run_id"] in sdk
    }
    return outside.with_columns(
        pl.col("run_id").replace_strict(hints, default=None, return_dtype=pl.String).alias("hint")
    )
