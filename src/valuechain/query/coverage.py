"""Read coverage: what each suite's checks can decide, link by link, and the Q5 lint (issue 19).

The numbers are the public views' (``suite_coverage``, ``coverage_lint``; sql/views/150–155):
this module only chooses the runs — one run, else the latest run of one suite, else the latest
run of every suite — and says clearly when the store holds no such run.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from valuechain.errors import UsageError
from valuechain.query.statements import query_rows, view_frame

LINKS_SQL = "coverage/010_links.sql"
LINT_SQL = "coverage/020_lint.sql"
TARGET_SQL = "coverage/030_target.sql"


@dataclass(frozen=True, slots=True)
class CoverageRequest:
    """Which runs coverage reads: ``run`` if given, else ``suite``'s latest, else every
    suite's latest."""

    suite: str | None = None
    run: str | None = None

    def params(self) -> dict[str, object]:
        return {"suite_id": self.suite, "run_id": self.run}


def coverage_request(*, suite: str | None = None, run: str | None = None) -> CoverageRequest:
    """Check the arguments once; naming both a suite and a run is a `UsageError`."""
    if suite is not None and run is not None:
        raise UsageError(
            "--suite and --run", "name one or the other", "a run already belongs to its suite"
        )
    return CoverageRequest(suite, run)


def _frame(con: duckdb.DuckDBPyConnection, name: str, request: CoverageRequest) -> pl.DataFrame:
    return view_frame(con, name, request.params(), "the coverage views are")


def _check_target(con: duckdb.DuckDBPyConnection, request: CoverageRequest) -> None:
    if request.run is None and request.suite is None:
        return
    (found,) = query_rows(con, TARGET_SQL, request.params())
    if request.run is not None and not found["run_found"]:
        raise UsageError(
            f"--run {request.run}",
            "no eval run with this id in the store",
            "valuechain runs lists the runs (eval runs carry a suite)",
        )
    if request.suite is not None and not found["suite_found"]:
        raise UsageError(
            f"--suite {request.suite}",
            "no eval run of this suite in the store",
            "valuechain runs lists the runs with their suite ids",
        )


def coverage_frame(con: duckdb.DuckDBPyConnection, request: CoverageRequest) -> pl.DataFrame:
    """The ``suite_coverage`` rows of the chosen runs: by suite, run, then chain order."""
    _check_target(con, request)
    return _frame(con, LINKS_SQL, request)


def coverage_lint_frame(con: duckdb.DuckDBPyConnection, request: CoverageRequest) -> pl.DataFrame:
    """The ``coverage_lint`` rows of the same runs: by suite, run, case, rule, stage."""
    _check_target(con, request)
    return _frame(con, LINT_SQL, request)
