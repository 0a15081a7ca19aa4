"""The verbs of `Store` that change the store: import, derive, recompute, materialize,
follow, delete and purge — and export and report, which write files from it. Each imports what
it calls, so opening a store loads none of it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from valuechain.contract.versions import STAGE_ANALYZER_VERSION

if TYPE_CHECKING:
    from valuechain.materialize.pending_documents import PendingDocuments
    from valuechain.pipeline.derive import DeriveSummary
    from valuechain.pipeline.export import ExportSummary
    from valuechain.pipeline.follow import FollowRound
    from valuechain.pipeline.imports import ImportReport, ProgressFn
    from valuechain.pipeline.operations import Purge, Removal
    from valuechain.pipeline.progress import ImportProgress
    from valuechain.pipeline.recompute import BatchFn, RecomputeResult
    from valuechain.report.html import StepFn
    from valuechain.store import Database, PendingDerivation
    from valuechain.synth.history_manifest import HistoryFile


class StoreChanges:
    """What a `Store` does to its store (mixed into `Store`: they use its ``db``)."""

    db: Database

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

    def materialize(self, runs: Sequence[str] | None = None, *, validate: bool = True) -> int:
        """Rebuild the analytics of ``runs`` (None: every run); returns documents written."""
        from valuechain.materialize.analytics import materialize_runs

        self.complete_pending()
        return materialize_runs(self.db.con, runs, validate=validate)

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
        return build_report(self.db.con, request, store=self.db.path, on_step=on_step)
