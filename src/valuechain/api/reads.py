"""The verbs of `Store` that read the store: runs, funnels, trials, comparisons, trends,
verdicts, coverage, issues and SQL. Each imports what it calls: listing runs loads DuckDB alone
(`run_rows`), a frame loads polars."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valuechain.contract.versions import STAGE_ANALYZER_VERSION

if TYPE_CHECKING:
    import polars as pl

    from valuechain.contract.compare import RunComparison
    from valuechain.contract.documents import StageAnalyticsV1
    from valuechain.contract.verdict_policy import VerdictPolicyFile
    from valuechain.query.chains import ChainDisagreements
    from valuechain.query.claims import ProducerClaims
    from valuechain.query.runs import RunCompleteness, StoreContents
    from valuechain.query.trial import TrialView
    from valuechain.query.verdict import VerdictView
    from valuechain.store import Database
    from valuechain.store.maintenance import StoreInfo


class StoreReads:
    """What a `Store` answers from its store (mixed into `Store`: they use its ``db``)."""

    db: Database

    def trial(
        self, trial_id: str, *, chains: str = "derived", analyzer: int | None = None
    ) -> TrialView:
        """One trial's identity, chain, outcome and advisory observations."""
        from valuechain.query.trial import trial_view

        return trial_view(self.db.con, trial_id, chains=chains, analyzer=analyzer)

    def trials(
        self,
        run: str,
        *,
        case: str | None = None,
        state: str | None = None,
        stage: str | None = None,
        analyzer: int | None = None,
    ) -> pl.DataFrame:
        """The run's trials and where each stopped (first failed link, reason, category);
        ``state`` keeps those with a link in that state (``stage``: that link), ``stage`` alone
        those whose first failed link it is; ``case``: a case id, key or title."""
        from valuechain.query.trials import run_trials

        return run_trials(self.db.con, run, case=case, state=state, stage=stage, analyzer=analyzer)

    def first_failing_trial(self) -> str | None:
        """The first trial (by id) whose derived chain failed a stage; None when none did."""
        from valuechain.query.trial import first_failing_trial

        return first_failing_trial(self.db.con)

    def disagreements(self, run: str | None = None) -> ChainDisagreements:
        """Where producer and derived chains disagree, stage by stage (None: every run)."""
        from valuechain.query.chains import chain_disagreements

        return chain_disagreements(self.db.con, run)

    def producer_claims(self, run: str | None = None) -> ProducerClaims:
        """Per trial of an MCPJam SDK run (None: every run), the SDK's own verdict beside the
        derived chain at the current analyzer: agreement and, in words, why they differ."""
        from valuechain.query.claims import producer_claims

        return producer_claims(self.db.con, run, STAGE_ANALYZER_VERSION)

    def runs(self) -> pl.DataFrame:
        """One row per run: identity, parity keys, analyzer, state, trials in and out."""
        from valuechain.query.runs import runs_frame

        return runs_frame(self.db.con)

    def run_rows(self) -> list[dict[str, Any]]:
        """`runs` as Python rows (column name → value), read without a DataFrame engine."""
        from valuechain.query.runs import run_rows

        return run_rows(self.db.con)

    def contents(self) -> StoreContents:
        """What the store holds: traces, spans, runs and how many runs are eval runs."""
        from valuechain.query.runs import store_contents

        return store_contents(self.db.con)

    def run_completeness(self, run: str) -> RunCompleteness | None:
        """How many of the run's expected trials the store holds; None for an unknown run."""
        from valuechain.query.runs import run_completeness

        return run_completeness(self.db.con, run)

    def has_run(self, run: str) -> bool:
        """Whether the store holds any trial of ``run``."""
        from valuechain.query.funnel import run_exists

        return run_exists(self.db.con, run)

    def has_suite(self, suite: str) -> bool:
        """Whether the store holds any trial of the suite ``suite``."""
        from valuechain.query.funnel import suite_exists

        return suite_exists(self.db.con, suite)

    def funnel(
        self,
        run: str,
        slice: str = "overall",
        *,
        chains: str = "derived",
        analyzer: int | None = None,
    ) -> pl.DataFrame:
        """One run's stage funnel (counts; rates per §5.8 with notMeasured kept apart)."""
        from valuechain.query.funnel import funnel_frame

        return funnel_frame(self.db.con, run, slice, chains, analyzer)

    def analytics_document(
        self, run: str, *, chains: str = "derived", analyzer: int | None = None
    ) -> StageAnalyticsV1 | None:
        """The run's EvalStageAnalyticsV1; None when the run exists but has no document."""
        from valuechain.query.funnel import analytics_document

        return analytics_document(self.db.con, run, chains=chains, analyzer=analyzer)

    def document_blocker(self, run: str) -> str | None:
        """Why ``run`` has no analytics document (e.g. suiteIdMissing); None if nothing blocks."""
        from valuechain.query.runs import document_blocker

        return document_blocker(self.db.con, run)

    def compare(
        self,
        a: str,
        b: str,
        *,
        chains: str = "derived",
        analyzer: int | None = None,
        force: bool = False,
    ) -> RunComparison:
        """Run B against run A: parity blockers, stage deltas and case changes when comparable
        (``force``: list the cases of a blocked pair, not as a comparison claim)."""
        from valuechain.query.compare import compare_runs

        return compare_runs(self.db.con, a, b, chains=chains, analyzer=analyzer, force=force)

    def trend(
        self,
        *,
        suite: str | None = None,
        stage: str | None = None,
        slice: str = "overall",
        since: dt.date | dt.datetime | str | None = None,
        chains: str = "derived",
        analyzer: int | None = None,
    ) -> pl.DataFrame:
        """Rates per stage of every final run that joins a partition of the parity keys
        (view ``stage_trend``): partitions in key order, runs by completion time. Each row
        is one run's own tally — never summed across runs; notMeasured rates stay null."""
        from valuechain.query.trend import trend_frame, trend_request

        request = trend_request(
            suite=suite, stage=stage, slice=slice, since=since, chains=chains, analyzer=analyzer
        )
        return trend_frame(self.db.con, request)

    def trend_blocked(
        self,
        *,
        suite: str | None = None,
        since: dt.date | dt.datetime | str | None = None,
        chains: str = "derived",
        analyzer: int | None = None,
    ) -> pl.DataFrame:
        """The runs `trend` leaves out: ``blockers`` says why (CONTRACT §5.11 order), or is
        null for a run without such a document (unmeasured; ``document_blocker`` says why)."""
        from valuechain.query.trend import runs_outside_partitions, trend_request

        request = trend_request(suite=suite, since=since, chains=chains, analyzer=analyzer)
        return runs_outside_partitions(self.db.con, request)

    def issues(
        self, *, code: str | None = None, severity: str | None = None, source: str | None = None
    ) -> pl.DataFrame:
        """The issues of imported sources, by code, severity and source path (None: any)."""
        from valuechain.query.issues import issues_frame

        return issues_frame(self.db.con, code=code, severity=severity, source=source)

    def spans_by_role(self) -> pl.DataFrame:
        """Spans and traces per role (mcp.app.role, else OpenInference span kind, else other)."""
        from valuechain.query.spans import spans_by_role

        return spans_by_role(self.db.con)

    def sql(
        self, query: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> pl.DataFrame:
        """Run one reading statement over the store's tables and views.

        SQL only reads: SELECT (WITH, FROM, VALUES, SHOW, DESCRIBE, SUMMARIZE) or EXPLAIN of
        one; anything else raises `UsageError` before it runs. Changes go through the verbs
        (`import_paths`, `derive`, `materialize`). No file beyond the store is reachable unless
        the store was opened with ``allow_files``; ``$name`` parameters bind ``params``.
        ``timeout`` (seconds) stops a query still running then and raises `QueryTimeoutError` (a
        `UsageError`); the store stays open and usable."""
        return self.db.sql(query, params, timeout=timeout)

    def info(self, *, limit: int = 20) -> StoreInfo:
        """Schema version, analyzer versions present, sizes, rows by table, runs, sources."""
        from valuechain.store.maintenance import store_info

        return store_info(self.db.con, self.db.path, limit=limit)

    def verdict(
        self,
        run: str,
        *,
        chains: str = "derived",
        analyzer: int | None = None,
        policy: VerdictPolicyFile | str | Path | None = None,
        page: str | None = None,
    ) -> VerdictView:
        """The run's decision summary (CONTRACT §6.6) with its cases' trial statistics; a
        ``policy`` (a file path or a parsed file) or a ``page`` cursor decides it on read."""
        from valuechain.api.tools import read_policy_file
        from valuechain.query.verdict import verdict_view

        parsed = read_policy_file(policy) if isinstance(policy, str | Path) else policy
        return verdict_view(
            self.db.con, run, chains=chains, analyzer=analyzer, policy=parsed, page=page
        )

    def coverage(self, *, suite: str | None = None, run: str | None = None) -> pl.DataFrame:
        """What each suite measures, link by link (view ``suite_coverage``): ``run``, else the
        latest run of ``suite``, else every suite's latest run; six rows per run in chain
        order. Counts come from derived chains at the current analyzer; advisory and
        observation checks are listed beside a link, never counted as covering it."""
        from valuechain.query.coverage import coverage_frame, coverage_request

        return coverage_frame(self.db.con, coverage_request(suite=suite, run=run))

    def coverage_lint(self, *, suite: str | None = None, run: str | None = None) -> pl.DataFrame:
        """The coverage lint (CONTRACT Q5, view ``coverage_lint``) of the runs `coverage`
        reads: links made applicable that nothing can grade, `toolCalledWith` rows that fall
        through to userValue, gating observation kinds."""
        from valuechain.query.coverage import coverage_lint_frame, coverage_request

        return coverage_lint_frame(self.db.con, coverage_request(suite=suite, run=run))
