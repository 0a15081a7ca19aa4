"""The derive step: the trials of some traces → chains, outcomes and measurements in the store.

Runs inside every import for the traces it touched (widened to whole runs, so run-level facts
see every trial), and on demand (``valuechain derive``) for every trace. The evidence adapter
builds one derivation input per trial; the pure analyzer derives the chain (stamped with its
version); the producer's persisted chain, when exported, is stored beside it as
``source = 'producer'``. Every table is replaced for the affected trials in one transaction.

Batches of whole runs are staged column-wise (`pipeline.staging`) in worker processes while
this process reads the next batches' rows as Arrow and writes the finished ones, gathered
into groups of ``WRITE_ROWS`` rows: one insert per table per group (`staged_batches`).

An import records each source's traces as awaiting derivation in the transaction that commits
the source (``core.pending_derivations``) and ``derive_pending`` clears that record only once
the chains and documents are written, so an interruption anywhere in between (a crash,
Ctrl-C, a failing later source) leaves a named state that every writing command completes
first (``derive_pending`` again) — never spans without trials, unnoticed. Committing each
source together with its derivation instead would re-derive a run once per source of it (a
collector's rotated files are many sources of one run) and cannot hold a source that commits
batch by batch.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections import deque
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import Interrupted
from valuechain.evidence.frames import ordered_attributes
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.materialize.analytics import materialize_runs
from valuechain.materialize.pending_documents import pending_documents
from valuechain.pipeline.handoff import MappedBatch, hand_off, stage_mapped, staged_from
from valuechain.pipeline.progress import ImportProgress, Phase, Silent
from valuechain.pipeline.staging import BatchRows, DeriveSummary, StagedBatch, stage_rows
from valuechain.pipeline.worker_context import worker_context
from valuechain.pipeline.worker_cores import start_staging_worker
from valuechain.store import EVERY_ROW, Database, PendingGroup, SpanRows, concatenated, of_runs
from valuechain.store.interrupt import is_interruption

__all__ = [
    "DEFAULT_BATCH_TRACES",
    "DeriveSummary",
    "StagedBatch",
    "TraceBatch",
    "combined",
    "derive_pending",
    "derive_traces",
    "joined",
    "load_trials",
    "run_batches",
    "stage_batch",
    "staged_batches",
    "write_batch",
]

# Traces (≈ trials) per derive batch: bounds memory (a batch's rows and objects live in one
# process at a time) while keeping the adapter's per-batch overhead small. Measured on a
# 10k-trial import with two workers: 2,500 traces peaked at 1,335 MB for the process tree
# (each worker ~400 MB), 1,000 at 1,200 MB in no more CPU time; the store's DuckDB limit
# (512MB by default, fixed when the store is opened) comes on top in the main process.
DEFAULT_BATCH_TRACES = 1_000
WORKERS_ENV = "VALUECHAIN_DERIVE_WORKERS"

# Derived rows written and committed as one (`store.concatenated` says why groups): a batch's
# ~31k rows (12k per chain table) fall under one 122,880-row row group. Gathered to 400k rows
# (~13 batches of 1,000 traces) the writes and commits of a 30k-trial store took ~30% less CPU
# than a batch at a time; gathered to a million (~32 batches, as the import's groups hold,
# `store.writer.COMMIT_ROWS`), a 1M-trial derive took 36 CPU s less in this process (263 →
# 227) and its tree peaked 17 MB higher (1,317 → 1,334 MB PSS, side by side on copies of one
# store). The staged batches stay mapped files, not copied: copied into one chunk a table, the
# peak rose to ~1,495 MB.
WRITE_ROWS = 1_000_000
STAGER = "valuechain.pipeline.handoff"  # what a staging worker runs, preloaded by the fork server
THREADS = "valuechain.pipeline.worker_threads"  # preloaded before it: one polars thread a worker


def derive_workers() -> int:
    """Worker processes for a multi-batch derive: ``$VALUECHAIN_DERIVE_WORKERS``, else one
    per core, at most two (the store's reads and writes keep the main process busy)."""
    found = os.environ.get(WORKERS_ENV)
    if found is not None and found.strip().isdigit():
        return int(found)
    return min(2, os.cpu_count() or 1)


def derive_traces(
    db: Database,
    trace_ids: Sequence[bytes] | None,
    *,
    analyzer: int = STAGE_ANALYZER_VERSION,
    content_changed: bool = True,
    batch_traces: int = DEFAULT_BATCH_TRACES,
    materialize: bool = True,
    progress: ImportProgress | None = None,
    workers: int | None = None,
) -> DeriveSummary:
    """Rebuild trials and chains for ``trace_ids`` (None: every trace).

    The traces are widened to whole runs and cut into batches of whole runs (memory stays
    bounded on large stores). Batches are staged in worker processes (`staged_batches`) while
    this one reads and writes the store; the staged batches are gathered until they hold
    ``WRITE_ROWS`` rows and replaced as one, in one transaction.

    Args:
        content_changed: the traces' spans changed, so chains at *other* analyzer versions
            are stale too and are dropped; ``False`` replaces only this analyzer's rows.
        materialize: rebuild the analytics documents and funnels of the runs touched.
        workers: staging processes (None: `derive_workers`; 0: batches staged in-process).
    """
    batches = run_batches(db.trace_runs(trace_ids), batch_traces)  # whole runs of them
    traces = sum(len(b.traces) for b in batches)
    progress = progress or Silent()
    progress.start(Phase.DERIVE, traces, f"at analyzer {analyzer}")
    totals = [0, 0, 0, 0]
    runs: set[str] = set()
    gathered: list[StagedBatch] = []
    gathered_rows = written = 0  # written: traces whose chains are committed
    try:
        with contextlib.closing(staged_batches(db, batches, analyzer, workers=workers)) as staging:
            for staged in staging:  # closed at once when cut short: its workers stop
                gathered.append(staged)
                gathered_rows += sum(table.num_rows for table in staged.tables.values())
                if gathered_rows >= WRITE_ROWS:
                    written += _derive_batch(db, joined(gathered), analyzer, content_changed)
                    gathered, gathered_rows = [], 0
                batch = staged.summary
                progress.advance(staged.traces.num_rows)
                for k, value in enumerate(
                    (batch.trials, batch.derived, batch.producer_chains, batch.issues)
                ):
                    totals[k] += value
                runs.update(batch.run_ids)
        if gathered:
            written += _derive_batch(db, joined(gathered), analyzer, content_changed)
        documents = 0
        if materialize and runs:
            progress.start(Phase.MATERIALIZE, len(runs))
            documents = materialize_runs(db.con, sorted(runs))
            progress.advance(len(runs))
    except BaseException as exc:
        if is_interruption(exc):
            raise Interrupted(
                f"the chains of {written:,} of {traces:,} traces were derived and kept, the "
                "rest keep the ones they had; valuechain derive derives them all again"
            ) from exc
        raise
    return DeriveSummary(totals[0], totals[1], totals[2], tuple(sorted(runs)), totals[3], documents)


def derive_pending(
    db: Database, progress: ImportProgress | None = None, *, workers: int | None = None
) -> DeriveSummary | None:
    """Derive (and materialize) everything imported but not derived yet, oldest source first,
    at the analyzer its import asked for, then write the documents of runs whose chains went
    without them (`pending_documents`); None when nothing was pending.

    The one entry point every writing verb calls before its own work (``workers``: as
    `derive_traces` takes them). Idempotent: cut short again, it leaves the record in place
    and the next call derives the same traces again.
    """
    try:
        summaries = [
            _derive_group(db, group, progress, workers) for group in db.pending_derivations()
        ]
        documents = pending_documents(db.con)
        if documents is not None:  # chains committed, their documents never written
            written = materialize_runs(db.con, list(documents.run_ids))
            summaries.append(DeriveSummary(0, 0, 0, documents.run_ids, 0, written))
    except BaseException as exc:
        if is_interruption(exc):
            raise Interrupted(
                "the derivation of what was imported is not finished; the next writing "
                "command (import, derive) completes it first"
            ) from exc
        raise
    return combined(summaries) if summaries else None


def _derive_group(
    db: Database, group: PendingGroup, progress: ImportProgress | None, workers: int | None
) -> DeriveSummary:
    summary = derive_traces(
        db, group.trace_ids, analyzer=group.analyzer, progress=progress, workers=workers
    )
    db.clear_pending(group.source_ids)
    return summary


def combined(summaries: Sequence[DeriveSummary]) -> DeriveSummary:
    """The sum of several derive steps (runs counted once)."""
    return DeriveSummary(
        sum(s.trials for s in summaries),
        sum(s.derived for s in summaries),
        sum(s.producer_chains for s in summaries),
        tuple(sorted({run for s in summaries for run in s.run_ids})),
        sum(s.issues for s in summaries),
        sum(s.documents for s in summaries),
    )


class TraceBatch(NamedTuple):
    """The traces of whole runs staged together, and the span rows they lie within."""

    traces: list[bytes]
    span_rows: SpanRows = EVERY_ROW


def run_batches(
    trace_runs: pa.Table,
    max_traces: int,
    *,
    touched: Sequence[bytes] | None = None,
) -> list[TraceBatch]:
    """The traces of ``trace_runs`` (`Database.trace_runs`) cut into batches of whole runs
    of at most ``max_traces`` (a larger run stays whole), runs in order of first appearance.
    With ``touched``, only the runs those traces belong to — every trace of them, so
    run-level facts (incomplete runs, id conflicts) see the whole run."""
    if touched is not None:
        trace_runs = of_runs(trace_runs, list(touched))
    # a run's traces together (the store's list is ordered by run already); Arrow, since a
    # million traces as Python objects outweigh everything else the derive step holds
    runs = pc.dictionary_encode(trace_runs["run_key"]).combine_chunks().indices
    by_run = trace_runs.take(pc.sort_indices(runs))  # stable: traces keep their order
    sizes = pc.value_counts(runs).field("counts").to_pylist()  # in order of first appearance
    batches: list[TraceBatch] = []
    start = end = 0
    for size in sizes:
        if end > start and end - start + size > max_traces:
            batches.append(_batch(by_run.slice(start, end - start)))
            start = end
        end += size
    if end > start:
        batches.append(_batch(by_run.slice(start, end - start)))
    return batches


def _batch(traces: pa.Table) -> TraceBatch:
    first = pc.min(traces["first_span_row"]).as_py()
    last = pc.max(traces["last_span_row"]).as_py()
    return TraceBatch(traces["trace_id"].to_pylist(), (first, last))


def batch_rows(db: Database, batch: TraceBatch) -> BatchRows:
    """The stored rows of one batch of traces, as Arrow (three queries, not one per trial)."""
    traces, span_rows = batch
    spans, attributes = db.trial_rows(traces, span_rows)
    return BatchRows(traces, spans, attributes, db.trial_sources(spans))


def stage_batch(db: Database, batch: TraceBatch, analyzer: int) -> StagedBatch:
    """Derive the trials of ``batch`` from their stored evidence, writing nothing."""
    return stage_rows(batch_rows(db, batch), analyzer)


def staged_batches(
    db: Database,
    batches: Sequence[TraceBatch],
    analyzer: int,
    *,
    workers: int | None = None,
) -> Generator[StagedBatch, None, None]:
    """`stage_batch` of every batch, in order. With several batches and workers, batches are
    staged in worker processes (trials never span runs, so batches are independent) while
    this process reads the next batches' rows and the caller writes the finished ones; at
    most ``workers + 1`` batches are in flight, so memory stays bounded.
    """
    with db.evidence_reads():  # the batches share one copy of the resource attributes
        yield from _staged(db, batches, analyzer, derive_workers() if workers is None else workers)


def _staged(
    db: Database, batches: Sequence[TraceBatch], analyzer: int, count: int
) -> Generator[StagedBatch, None, None]:
    if count < 1 or len(batches) <= 1:
        for batch in batches:
            yield stage_batch(db, batch, analyzer)
        return
    # Workers start from valuechain's modules, not the caller's script (`worker_context`),
    # and exit with this process, however it ends, as the import's decode workers do (the
    # lifeline pipe). The fork server imports the staging code once and each worker it forks
    # starts with it; `THREADS` comes first: it must precede polars.
    context = worker_context([THREADS, STAGER])
    # rows and staged tables cross as files the other side maps (`pipeline.handoff`); the
    # workers remove the folder if this process dies first
    folder = tempfile.TemporaryDirectory(prefix="valuechain-derive-")
    watched, lifeline = context.Pipe(duplex=False)
    # each worker keeps to a core of its own, the next one the counter gives
    claimed = context.Value("i", 0)
    pool = ProcessPoolExecutor(
        count,
        mp_context=context,
        initializer=start_staging_worker,
        initargs=(watched, folder.name, claimed, count),
    )
    pending: deque[Future[MappedBatch]] = deque()
    try:
        for k, batch in enumerate(batches):
            mapped = hand_off(batch_rows(db, batch), Path(folder.name) / str(k))
            pending.append(pool.submit(stage_mapped, mapped, analyzer))
            if len(pending) > count:
                yield staged_from(pending.popleft().result())
        while pending:
            yield staged_from(pending.popleft().result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        lifeline.close()
        folder.cleanup()


def joined(batches: Sequence[StagedBatch]) -> StagedBatch:
    """Staged batches as one: their runs are disjoint, so written as one they replace the
    same rows, in the same order, as one after the other; the batches' tables are let go as
    they are joined. Not copied into one chunk a table: the derive step's plain inserts took
    the same time either way (a 100k-trial derive), and the copy would add to its peak."""
    if len(batches) == 1:
        return batches[0]
    tables = concatenated([b.tables for b in batches], contiguous=False)
    traces = pa.concat_tables([b.traces for b in batches])
    return StagedBatch(traces, tables, combined([b.summary for b in batches]))


def write_batch(
    db: Database,
    staged: StagedBatch,
    analyzer: int,
    content_changed: bool,
    then: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
) -> None:
    """Replace the batch's rows in one transaction (``then`` writes inside it too)."""
    db.replace_trials(
        staged.traces,
        staged.tables,
        analyzer=analyzer,
        replace_all_versions=content_changed,
        then=then,
    )


def _derive_batch(db: Database, staged: StagedBatch, analyzer: int, content_changed: bool) -> int:
    """Write one gathered batch; the number of its traces."""
    write_batch(db, staged, analyzer, content_changed)
    return int(staged.traces.num_rows)


def load_trials(db: Database, trace_ids: Sequence[str | bytes]) -> TrialEvidence:
    """The evidence adapter over the stored rows of the given traces."""
    spans, attributes = db.trial_rows(trace_ids)
    return build_trials(spans, ordered_attributes(attributes), source_runs=db.trial_sources(spans))
