"""The offline HTML report: one self-contained file with each run's funnel, rates, failing
reasons, verdict and coverage, and the trend partitions with the runs outside them."""

from __future__ import annotations

import duckdb

from valuechain.report.html.gather import ReportData, ReportRequest, StepFn, gather, report_request
from valuechain.report.html.page import render_page

__all__ = ["ReportData", "ReportRequest", "StepFn", "build_report", "report_request"]


def build_report(
    con: duckdb.DuckDBPyConnection,
    request: ReportRequest,
    *,
    store: str,
    on_step: StepFn | None = None,
) -> str:
    """The report's HTML for ``request`` over the store behind ``con``.

    Raises:
        UsageError: an unknown run or suite, or a store without runs.
    """
    return render_page(gather(con, request, store=store, on_step=on_step))
