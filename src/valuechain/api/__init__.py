"""The Python face of valuechain; it mirrors the CLI verbs and returns polars frames.

>>> import valuechain
>>> store = valuechain.open("valuechain.duckdb")
>>> report = store.import_paths(["exports/"])
>>> store.sql("SELECT count(*) FROM spans")

One thin method per verb on `Store`, each a call into pipeline/query/report that imports
what it calls: opening a store and listing its runs loads DuckDB, polars and the query side,
not the decoders, derive or the report (`valuechain runs` answers in well under a second).
The functions that need no store live in `valuechain.api.tools`, re-exported here on first
use. Over 400 lines because it is the one page a library user reads: every verb's method with
its docstring, side by side, each a few lines that call elsewhere; splitting it by verb would
only scatter that page.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from valuechain.contract.versions import STAGE_ANALYZER_VERSION

if TYPE_CHECKING:
    import polars as pl

    from valuechain.api.tools import decode, read_policy_file, scale, synth_history
    from valuechain.contract.compare import RunComparison
    from valuechain.contract.documents import StageAnalyticsV1
    from valuechain.contract.verdict_policy import VerdictPolicyFile
    from valuechain.materialize.pending_documents import PendingDocuments
    from valuechain.pipeline.derive import DeriveSummary
    from valuechain.pipeline.export import ExportSummary
    from valuechain.pipeline.follow import FollowRound
    from valuechain.pipeline.imports import ImportReport, ProgressFn
    from valuechain.pipeline.operations import Purge, Removal
    from valuechain.pipeline.progress import ImportProgress
    from valuechain.pipeline.recompute import BatchFn, RecomputeResult
    from valuechain.query.chains import ChainDisagreements
    from valuechain.query.claims import ProducerClaims
    from valuechain.query.runs import RunCompleteness, StoreContents
    from valuechain.query.trial import TrialView
    from valuechain.query.verdict import VerdictView
    from valuechain.report.html import StepFn
    from valuechain.store import Database, PendingDerivation
    from valuechain.store.maintenance import StoreInfo
    from valuechain.synth.history_manifest import HistoryFile

__all__ = ["Store", "decode", "open", "read_policy_file", "scale", "synth_history"]

_TOOLS = frozenset({"decode", "read_policy_file", "scale", "synth_history"})


def __getattr__(name: str) -> Any:
    """The functions that need no store (`valuechain.api.tools`), loaded on first use."""
    if name not in _TOOLS:
        raise AttributeError(f"module 'valuechain.api' has no attribute {name!r}")
    from valuechain.api import tools

    value = getattr(tools, name)
    globals()[name] = value
    return value


class Store:
    """A valuechain store: import exports, query the tables and views with SQL."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @property
    def path(self) -> str:
        return self.db.path

    def import_paths(
        self,
        paths: Iterable[str | Path],
        *,
        strict: bool = False,
        salvage: bool = False,
        on_progress: ProgressFn | ImportProgress | None = None,
        derive: bool = True,
        analyzer: int = STAGE_ANALYZER_VERSION,
        **decode_options: Any,
    ) -> ImportReport:
        """Import files, directories and globs; one transaction per source; then derive (what
        earlier imports left underived first)."""
        from valuechain.ingest.decode import DecodeOptions
        from valuechain.pipeline.imports import ImportOptions, import_paths

        options = ImportOptions(
            strict=strict,
            decode=DecodeOptions(salvage=salvage, **decode_options),
            derive=derive,
            analyzer=analyzer,
        )
        return import_paths(self.db, paths, options, on_progress)

    def import_history(
        self, path: str | Path, *, on_progress: ProgressFn | ImportProgress | None = None
    ) -> list[tuple[HistoryFile, ImportReport]]:
        """Import a `write_history` archive (its folder or `history.json`) file by file, in
        week order, each at the analyzer version its manifest names."""
        from valuechain.synth.history_manifest import read_manifest

        manifest, folder = read_manifest(path), Path(path)
        folder = folder if folder.is_dir() else folder.parent
        return [
            (
                file,
                self.import_paths(
                    [folder / file.path], analyzer=file.analyzer, on_progress=on_progress
                ),
            )
            for file in manifest.files
        ]

    def derive(
        self, *, analyzer: int = STAGE_ANALYZER_VERSION, on_progress: ImportProgress | None = None
    ) -> DeriveSummary:
        """(Re)derive every trial's chain at ``analyzer`` (12, or the selectable 11);
        ``on_progress`` watches its derive and materialize phases."""
        from valuechain.pipeline.derive import derive_pending, derive_traces

        derive_pending(self.db, on_progress)
        return derive_traces(
            self.db, None, analyzer=analyzer, content_changed=False, progress=on_progress
        )

    def pending_derivation(self) -> PendingDerivation | None:
        """What was imported but not derived yet (None: nothing); every writing verb derives
        it first."""
        return self.db.pending_derivation()

    def pending_documents(self) -> PendingDocuments | None:
        """The runs whose chains are stored without their analytics documents (a derive
        stopped between the two; None: none); every writing verb writes them first."""
        from valuechain.materialize.pending_documents import pending_documents

        return pending_documents(self.db.con)

    def complete_pending(self) -> DeriveSummary | None:
        """Derive what was imported but not derived yet (an interrupted or ``--no-derive``
        import); every writing verb calls this first. None when nothing was pending."""
        from valuechain.pipeline.derive import derive_pending

        return derive_pending(self.db)

    def recompute(
        self,
        *,
        analyzer: int = STAGE_ANALYZER_VERSION,
        runs: Sequence[str] | None = None,
        dry_run: bool = False,
        prune: bool = False,
        on_batch: BatchFn | None = None,
    ) -> RecomputeResult:
        """Re-derive what is stale for ``analyzer`` (older chains, changed evidence), batch by
        batch from the stored evidence; ``prune`` then drops older derived chains."""
        from valuechain.pipeline.recompute import recompute

        return recompute(
            self.db, analyzer=analyzer, runs=runs, dry_run=dry_run, prune=prune, on_batch=on_batch
        )

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

    def materialize(self, runs: Sequence[str] | None = None, *, validate: bool = True) -> int:
        """Rebuild the analytics of ``runs`` (None: every run); returns documents written."""
        from valuechain.materialize.analytics import materialize_runs

        self.complete_pending()
        return materialize_runs(self.db.con, runs, validate=validate)

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

    def delete(
        self, *, run: str | None = None, source: str | None = None, dry_run: bool = False
    ) -> Removal:
        """Remove one run or one source (path or sha256) and what came only from it, deriving
        what was shared again, in one transaction (``dry_run``: count, change nothing)."""
        from valuechain.pipeline.operations import delete

        return delete(self.db, run=run, source=source, dry_run=dry_run)

    def purge_content(self, *, dry_run: bool = False) -> Purge:
        """Drop every content-gated value (TRACE-FORMAT §3.6); chains and funnels stay."""
        from valuechain.pipeline.operations import purge_content

        return purge_content(self.db, dry_run=dry_run)

    def follow(
        self,
        directory: str | Path,
        *,
        interval: float = 2.0,
        stop: Callable[[float], bool],
        on_round: Callable[[FollowRound], None] | None = None,
        strict: bool = False,
        salvage: bool = False,
        derive: bool = True,
        analyzer: int = STAGE_ANALYZER_VERSION,
        **decode_options: Any,
    ) -> int:
        """Keep importing a collector directory's complete records as they appear (deriving
        the runs touched) until ``stop(interval)`` is true; resumes from the stored offsets."""
        from valuechain.ingest.decode import DecodeOptions
        from valuechain.pipeline.follow import follow
        from valuechain.pipeline.imports import ImportOptions

        options = ImportOptions(
            strict=strict,
            decode=DecodeOptions(salvage=salvage, **decode_options),
            derive=derive,
            analyzer=analyzer,
        )
        return follow(
            self.db, Path(directory), options, interval=interval, stop=stop, on_round=on_round
        )

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

    def export_parquet(
        self,
        path: str | Path,
        *,
        runs: Sequence[str] | None = None,
        overwrite: bool = False,
        progress: ImportProgress | None = None,
    ) -> ExportSummary:
        """The public tables of ``runs`` (None: all) as Hive-partitioned Parquet below
        ``path`` (``<table>/suite_id=…/run_id=…/``), written aside and renamed into place."""
        from valuechain.pipeline.export import export_parquet

        return export_parquet(self.db, path, runs=runs, overwrite=overwrite, progress=progress)

    def report(
        self,
        *,
        runs: Iterable[str] | str = (),
        suite: str | None = None,
        on_step: StepFn | None = None,
    ) -> str:
        """The offline HTML report (one self-contained page, no network fetches) of ``runs``,
        else of ``suite``'s runs, else of every run: each run's funnel, rates, failing reasons,
        verdict and coverage, then the trend partitions and the runs outside them. Returns the
        HTML; ``valuechain report --out FILE`` writes it (never onto a store)."""
        from valuechain.report.html import build_report, report_request

        request = report_request(runs=runs, suite=suite)
        return build_report(self.db.con, request, store=self.path, on_step=on_step)

    def close(self) -> None:
        self.db.close()

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

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open(
    path: str | Path | None = None,
    *,
    read_only: bool = False,
    memory_limit: str | None = None,
    allow_files: str | Path | None = None,
    wait: float = 0.0,
) -> Store:
    """Open (creating if needed) a store; ``None`` means ``$VALUECHAIN_STORE`` or the default.

    ``memory_limit`` bounds DuckDB's memory (default ``$VALUECHAIN_MEMORY_LIMIT`` or 512MB);
    ``allow_files`` opens one folder for `Store.sql` to read files from (none by default);
    ``wait``: while another process holds the store, wait up to this many seconds for it
    (default: fail at once with "store is busy (pid …)")."""
    from valuechain.store import open_database

    allowed = () if allow_files is None else (Path(allow_files),)
    return Store(
        open_database(
            path,
            read_only=read_only,
            memory_limit=memory_limit,
            allowed_directories=allowed,
            wait=wait,
        )
    )
