"""Recompute: re-derive what is stale for an analyzer version, from the evidence in the store.

CONTRACT §7.3's re-analysis job. A trace is stale for the target analyzer (default: the
current one) when its evidence changed since it was derived, or when a trial of it has derived
chains only at older versions (``query/staleness.py``). Stale traces are widened to whole runs
(run-level facts see every trial) and cut into batches of runs, each batch into the derive
step's small staging chunks. The chunks are staged with the derive step's own machinery
(``pipeline/derive.py``: worker processes, no export file is read again); a batch's chunks are
written together with its runs' documents in one transaction, so an interrupted recompute leaves
every batch either done or untouched, and the next one resumes with what is still stale.

A batch (``RECOMPUTE_BATCH_TRACES``) is larger than a staging chunk (``DEFAULT_BATCH_TRACES``)
because each commit rebuilds its runs' documents, and a materialization has a cost of its own
beside its runs': one per staging chunk made a recompute cost about twice the derive step that
wrote the chains (which materializes once, at the end). Memory stays bounded by a batch's staged
tables, never its evidence rows.

Chains at other versions stay beside the new ones (a reader can still compare within an old
version) until ``prune`` drops the derived chains older than the target of trials that have one
at the target; the producer's chains are never touched. When a trace's evidence changed, its
run's chains at every version are rebuilt from it, as an import does. Derived chains or
documents from an analyzer newer than this valuechain's are refused, never coerced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.versions import SELECTABLE_ANALYZER_VERSIONS, STAGE_ANALYZER_VERSION
from valuechain.errors import Interrupted, UsageError, VersionAheadError
from valuechain.materialize.analytics import materialize_in_transaction
from valuechain.pipeline.derive import (
    DEFAULT_BATCH_TRACES,
    TraceBatch,
    joined,
    run_batches,
    staged_batches,
    write_batch,
)
from valuechain.query.staleness import prunable, stale_traces, state_flips, versions_ahead
from valuechain.store import Database
from valuechain.store.interrupt import is_interruption

BatchFn = Callable[[int, int, int], None]  # (batches done, batches in all, trials in the batch)

# Traces (≈ trials) per committed batch of whole runs: a commit and its runs' documents each.
RECOMPUTE_BATCH_TRACES = 20_000


@dataclass(frozen=True, slots=True)
class RecomputeBatch:
    """Whole runs re-derived in one transaction, staged in chunks of whole runs."""

    traces: list[bytes]
    chunks: tuple[TraceBatch, ...]  # the traces cut for staging (the derive step's batches)
    evidence_changed: bool  # rebuild every analyzer version of these runs, not only the target
    stored_run_ids: tuple[str, ...]  # the runs their stored trials name (re-materialized too)


@dataclass(frozen=True, slots=True)
class RecomputePlan:
    """What is stale for ``target``, as batches of runs."""

    target: int
    batches: tuple[RecomputeBatch, ...]
    runs: tuple[str, ...]  # runs named by the stale traces' stored trials
    traces: int  # stale traces, before widening to whole runs
    traces_changed: int  # of them, with evidence newer than their chains
    trials_behind: int  # trials whose derived chains are all older than the target


@dataclass(frozen=True, slots=True)
class RecomputeResult:
    """What a recompute did (or, with ``dry_run``, would do)."""

    plan: RecomputePlan
    dry_run: bool
    trials: int = 0  # trials re-derived (dry run: that would be)
    runs: tuple[str, ...] = ()  # runs re-derived and re-materialized
    documents: int = 0
    new_chains: int = 0  # trials getting their first derived chain at or below the target
    flips: pl.DataFrame = field(default_factory=pl.DataFrame)  # dry run: changed stage rows
    pruned: pl.DataFrame = field(default_factory=pl.DataFrame)  # run, old version, trials

    @property
    def nothing_stale(self) -> bool:
        return not self.plan.batches


def recompute(
    db: Database,
    *,
    analyzer: int = STAGE_ANALYZER_VERSION,
    runs: Sequence[str] | None = None,
    dry_run: bool = False,
    prune: bool = False,
    batch_traces: int = RECOMPUTE_BATCH_TRACES,
    stage_traces: int = DEFAULT_BATCH_TRACES,
    on_batch: BatchFn | None = None,
) -> RecomputeResult:
    """Re-derive every stale trial at ``analyzer`` (of ``runs``; None: every run), batch by
    batch (``batch_traces`` per commit, staged ``stage_traces`` at a time), then (``prune``)
    drop older derived chains; ``dry_run`` writes nothing.

    Raises:
        VersionAheadError: ``analyzer``, or a derived chain or document in the store, is newer
            than this valuechain's analyzer (nothing is changed).
        UsageError: ``analyzer`` is not one valuechain can derive at.
    """
    check_target(db, analyzer)
    plan = plan_recompute(
        db, analyzer, runs=runs, batch_traces=batch_traces, stage_traces=stage_traces
    )
    if dry_run:
        return _preview(db, plan, runs if runs is None else list(runs), prune)
    trials, documents, touched_runs, done = 0, 0, set[str](), 0
    # Staged chunk by chunk in worker processes (as the derive step is) while this one writes;
    # closed at once when cut short, so that its workers stop.
    chunks = [c for batch in plan.batches for c in batch.chunks]
    try:
        with contextlib.closing(staged_batches(db, chunks, analyzer)) as staging:
            for batch in plan.batches:
                staged = joined([next(staging) for _ in batch.chunks])
                batch_runs = sorted({*staged.summary.run_ids, *batch.stored_run_ids})
                written: list[int] = []
                # Behind only: the runs' chains at other versions are untouched, so are their
                # documents.
                versions = None if batch.evidence_changed else [analyzer]
                then = partial(
                    _materialize_into, runs=batch_runs, versions=versions, written=written
                )
                write_batch(db, staged, analyzer, batch.evidence_changed, then=then)
                done += 1
                trials += staged.summary.trials
                documents += sum(written)
                touched_runs.update(batch_runs)
                if on_batch is not None:
                    on_batch(done, len(plan.batches), staged.summary.trials)
        pruned = _prune(db, analyzer, runs) if prune else pl.DataFrame()
    except BaseException as exc:
        if is_interruption(exc):
            raise Interrupted(
                f"{done} of {len(plan.batches)} batches recomputed and kept (each with its "
                "runs' documents); valuechain recompute resumes with the rest"
            ) from exc
        raise
    return RecomputeResult(
        plan, False, trials, tuple(sorted(touched_runs)), documents, pruned=pruned
    )


def _materialize_into(
    con: duckdb.DuckDBPyConnection,
    *,
    runs: list[str],
    versions: list[int] | None,
    written: list[int],
) -> None:
    """Rebuild the documents of ``runs`` (at ``versions``; None: every version) inside the
    batch's transaction; count them."""
    written.append(materialize_in_transaction(con, runs, versions=versions))


def check_target(db: Database, analyzer: int) -> None:
    """Refuse a target or a store this valuechain cannot honour, before anything is read."""
    if analyzer > STAGE_ANALYZER_VERSION:
        raise VersionAheadError(
            f"--analyzer {analyzer}",
            f"newer than this valuechain's analyzer ({STAGE_ANALYZER_VERSION})",
            "upgrade valuechain to derive at a newer analyzer",
        )
    if analyzer not in SELECTABLE_ANALYZER_VERSIONS:
        selectable = " or ".join(str(v) for v in SELECTABLE_ANALYZER_VERSIONS)
        raise UsageError(
            f"--analyzer {analyzer}",
            "not an analyzer valuechain can derive at",
            f"recompute at {selectable}; older chains are read as stored",
        )
    ahead = versions_ahead(db.con, STAGE_ANALYZER_VERSION)
    if ahead:
        found = "; ".join(f"{a.count} {a.what} at analyzer {a.version}" for a in ahead)
        raise VersionAheadError(
            db.path,
            f"the store holds {found}, newer than this valuechain's analyzer "
            f"({STAGE_ANALYZER_VERSION}); they are never coerced",
            "recompute with the newer valuechain that wrote them; the store was not changed",
        )


def plan_recompute(
    db: Database,
    analyzer: int,
    *,
    runs: Sequence[str] | None = None,
    batch_traces: int = RECOMPUTE_BATCH_TRACES,
    stage_traces: int = DEFAULT_BATCH_TRACES,
) -> RecomputePlan:
    """The stale traces for ``analyzer``, widened to whole runs and cut into batches of at
    most ``batch_traces`` (a larger run stays whole), each into staging chunks of at most
    ``stage_traces``: runs whose evidence changed first (every version rebuilt), then runs
    only behind the target."""
    stale = stale_traces(db.con, analyzer)
    if not stale:  # the common case: skip reading every trace's run (a scan of the attributes)
        return RecomputePlan(analyzer, (), (), 0, 0, 0)
    trace_runs = db.trace_runs()
    run_key = dict(
        zip(trace_runs["trace_id"].to_pylist(), trace_runs["run_key"].to_pylist(), strict=True)
    )
    stale = [s for s in stale if s.trace_id in run_key]
    if runs is not None:
        wanted = set(runs)
        stale = [s for s in stale if wanted & {*s.run_ids, run_key[s.trace_id]}]
    changed_keys = {run_key[s.trace_id] for s in stale if s.evidence_changed}
    behind_keys = {run_key[s.trace_id] for s in stale} - changed_keys
    by_trace = {s.trace_id: s for s in stale}
    batches: list[RecomputeBatch] = []
    for keys, evidence_changed in ((changed_keys, True), (behind_keys, False)):
        touched = [t for t, k in run_key.items() if k in keys]
        for batch in run_batches(trace_runs, batch_traces, touched=touched) if touched else []:
            traces = batch.traces
            stored = {r for t in traces if t in by_trace for r in by_trace[t].run_ids}
            of_batch = pc.is_in(trace_runs["trace_id"], pa.array(traces, pa.binary()))
            chunks = tuple(run_batches(trace_runs.filter(of_batch), stage_traces))
            batches.append(RecomputeBatch(traces, chunks, evidence_changed, tuple(sorted(stored))))
    return RecomputePlan(
        analyzer,
        tuple(batches),
        tuple(sorted({r for s in stale for r in s.run_ids})),
        len(stale),
        sum(s.evidence_changed for s in stale),
        sum(s.trials_behind for s in stale),
    )


def _preview(
    db: Database, plan: RecomputePlan, runs: list[str] | None, prune: bool
) -> RecomputeResult:
    """Derive every batch in memory and count what would change; write nothing."""
    trials, new_chains, flips = 0, 0, []
    touched_runs: set[str] = {r for batch in plan.batches for r in batch.stored_run_ids}
    chunks = [c for batch in plan.batches for c in batch.chunks]
    for staged in staged_batches(db, chunks, plan.target):
        found, new = state_flips(db.con, staged.tables["stage_chain"], plan.target)
        flips.append(found)
        trials += staged.summary.trials
        new_chains += new
        touched_runs.update(staged.summary.run_ids)
    return RecomputeResult(
        plan,
        True,
        trials,
        tuple(sorted(touched_runs)),
        new_chains=new_chains,
        flips=_sum_flips(flips),
        pruned=prunable(db.con, plan.target, runs) if prune else pl.DataFrame(),
    )


def _sum_flips(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """One row per (stage, before, after) over every batch."""
    frames = [f for f in frames if f.height]
    if not frames:
        return pl.DataFrame()
    keys = [c for c in frames[0].columns if c != "rows"]
    return pl.concat(frames).group_by(keys).agg(pl.col("rows").sum()).sort(keys, nulls_last=True)


def _prune(db: Database, analyzer: int, runs: Sequence[str] | None) -> pl.DataFrame:
    """Drop derived chains older than ``analyzer`` where one at ``analyzer`` exists, and
    re-materialize the runs that had them, in one transaction."""
    found = prunable(db.con, analyzer, runs)
    if found.height:
        pruned_runs = sorted(set(found["run_id"].to_list()))
        versions = sorted(set(found["analyzer_version"].to_list()))  # the target's are unchanged
        then = partial(_materialize_into, runs=pruned_runs, versions=versions, written=[])
        db.prune_derived(analyzer, None if runs is None else list(runs), then=then)
    return found


__all__ = [
    "RECOMPUTE_BATCH_TRACES",
    "RecomputeBatch",
    "RecomputePlan",
    "RecomputeResult",
    "check_target",
    "plan_recompute",
    "recompute",
]
