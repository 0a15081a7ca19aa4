"""What the HTML report shows, read through the query layer's own functions.

Nothing is computed here that a verb does not compute: each run's analytics document
(`query.funnel`), its decision summary (`query.verdict`), its suite's coverage
(`query.coverage`), its failing cases and trials (`failing_data`: `query.trials`,
`query.trial`), and the trend partitions with the runs outside them (`query.trend`).
A run without a document stays UNMEASURED with the store's reason (CONTRACT §5.10).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import duckdb
import polars as pl

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.errors import UsageError
from valuechain.query.coverage import coverage_frame, coverage_request
from valuechain.query.funnel import analytics_document, require_run
from valuechain.query.runs import runs_frame
from valuechain.query.trend import (
    PARTITION_KEY,
    runs_outside_partitions,
    trend_frame,
    trend_request,
)
from valuechain.query.verdict import VerdictView, verdict_view
from valuechain.report.html.failing_data import RunFailures, run_failures

StepFn = Callable[[str, int, int], None]  # (what, done, total)


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """Which runs the report covers: ``runs`` if given, else ``suite``'s, else every run."""

    runs: tuple[str, ...] = ()
    suite: str | None = None


def report_request(*, runs: Iterable[str] | str = (), suite: str | None = None) -> ReportRequest:
    """Check the arguments once; naming runs and a suite together is a `UsageError`.
    ``runs`` is any iterable of run ids (a polars Series too), or one run id."""
    chosen = (runs,) if isinstance(runs, str) else tuple(str(r) for r in runs)
    if chosen and suite is not None:
        raise UsageError(
            "--runs and --suite", "name one or the other", "a run already belongs to its suite"
        )
    return ReportRequest(tuple(dict.fromkeys(chosen)), suite)


@dataclass(frozen=True, slots=True)
class RunReport:
    """One run: its listing row, its document (None: unmeasured), verdict and coverage."""

    run_id: str
    row: dict[str, Any]
    document: StageAnalyticsV1 | None
    verdict: VerdictView | None
    verdict_missing: str | None  # why there is no decision summary (None: there is one)
    coverage: pl.DataFrame | None  # six rows in chain order; None: not an eval run
    failures: RunFailures  # failing cases and trials (none for an unmeasured run)

    @property
    def suite_name(self) -> str | None:
        return self.failures.suite_name


@dataclass(frozen=True, slots=True)
class Partition:
    """One trend partition: its parity key, its runs in completion order, their rows."""

    key: dict[str, Any]
    runs: tuple[str, ...]
    rows: pl.DataFrame


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the page renders."""

    request: ReportRequest
    store: str
    runs: tuple[RunReport, ...]
    partitions: tuple[Partition, ...]
    outside: pl.DataFrame  # runs outside every partition: blockers, or null (unmeasured)
    generated_at: dt.datetime


def _selected_runs(con: duckdb.DuckDBPyConnection, request: ReportRequest) -> pl.DataFrame:
    listing = runs_frame(con)
    if request.runs:
        for run in request.runs:
            require_run(con, run)
        order = {run: i for i, run in enumerate(request.runs)}
        return (
            listing.filter(pl.col("run_id").is_in(request.runs))
            .with_columns(pl.col("run_id").replace_strict(order, default=None).alias("_order"))
            .sort("_order")
            .drop("_order")
        )
    if request.suite is not None:
        chosen = listing.filter(pl.col("suite_id") == request.suite)
        if chosen.is_empty():
            raise UsageError(
                f"--suite {request.suite}",
                "no eval run of this suite in the store",
                "valuechain runs lists the runs with their suite ids",
            )
        return chosen
    if listing.is_empty():
        raise UsageError(
            "the store", "holds no run to report on", "import an export first: valuechain import"
        )
    return listing


def _verdict(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[VerdictView | None, str | None]:
    try:
        return verdict_view(con, run_id), None
    except UsageError as error:  # a run the contract cannot decide (no run id): say why
        return None, error.problem


def _run_report(con: duckdb.DuckDBPyConnection, row: dict[str, Any]) -> RunReport:
    run_id = str(row["run_id"])
    document = analytics_document(con, run_id)
    verdict, missing = _verdict(con, run_id)
    coverage = (
        coverage_frame(con, coverage_request(run=run_id)) if row["suite_id"] is not None else None
    )
    failures = run_failures(con, run_id, verdict=verdict)
    return RunReport(run_id, row, document, verdict, missing, coverage, failures)


def _partitions(series: pl.DataFrame, runs: set[str] | None) -> tuple[Partition, ...]:
    overall = series.filter(pl.col("slice_dimension") == "overall")
    found: list[Partition] = []
    rows = overall.iter_rows(named=True)
    for key, group in groupby(rows, key=lambda r: tuple(r[c] for c in PARTITION_KEY)):
        members = list(group)
        order = tuple(dict.fromkeys(r["run_id"] for r in members))  # completion order
        if runs is not None and not runs.intersection(order):
            continue
        found.append(
            Partition(dict(zip(PARTITION_KEY, key, strict=True)), order, pl.DataFrame(members))
        )
    return tuple(found)


def gather(
    con: duckdb.DuckDBPyConnection,
    request: ReportRequest,
    *,
    store: str,
    on_step: StepFn | None = None,
) -> ReportData:
    """Read every section's data; ``on_step`` hears each run and the trend as they are read.

    Raises:
        UsageError: an unknown run or suite, or a store without runs.
    """
    chosen = _selected_runs(con, request)
    total = chosen.height + 1
    reports: list[RunReport] = []
    for done, row in enumerate(chosen.iter_rows(named=True)):
        if on_step is not None:
            on_step(f"run {row['run_id']}", done, total)
        reports.append(_run_report(con, row))
    if on_step is not None:
        on_step("trend", total - 1, total)
    trend = trend_request(suite=request.suite)
    selected = set(request.runs) if request.runs else None
    partitions = _partitions(trend_frame(con, trend), selected)
    outside = runs_outside_partitions(con, trend)
    if selected is not None:
        outside = outside.filter(pl.col("run_id").is_in(list(selected)))
    if on_step is not None:
        on_step("render", total, total)
    return ReportData(
        request=request,
        store=store,
        runs=tuple(reports),
        partitions=partitions,
        outside=outside,
        generated_at=dt.datetime.now(dt.UTC),
    )
