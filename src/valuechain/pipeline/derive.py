"""The derive step: the trials of some traces → chains, outcomes and measurements in the store.

Runs inside every import for the traces it touched (widened to whole runs, so run-level facts
see every trial), and on demand (``valuechain derive``) for every trace. The evidence adapter
builds one derivation input per trial; the pure analyzer derives the chain (stamped with its
version); the producer's persisted chain, when exported, is stored beside it as
``source = 'producer'``. Every table is replaced for the affected trials in one transaction.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import duckdb
import orjson
import pyarrow as pa

from valuechain.contract.chain import StageDerivation, StageResult
from valuechain.contract.tables import SETUP_SIGNALS, TRACE_ID, TRIAL_FLAGS
from valuechain.contract.tables import STAGE_CHAIN as CHAIN
from valuechain.contract.tables import STAGE_MEASUREMENTS as MEASUREMENTS
from valuechain.contract.tables import TRIAL_OUTCOME as OUTCOME
from valuechain.contract.versions import STAGE_ANALYZER_VERSION, STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.contract.vocab import SetupPhase
from valuechain.contract.vocab_rules import STAGES
from valuechain.derive import derive_chains, derive_measurements, stage_measurement_disagreements
from valuechain.derive.jssem import js_json
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.materialize.analytics import materialize_runs
from valuechain.pipeline.progress import ImportProgress, Phase, Silent
from valuechain.store import Database, PendingGroup

DEFAULT_BATCH_TRACES = 20_000  # traces (≈ trials) per derive batch: bounds memory


@dataclass(frozen=True, slots=True)
class DeriveSummary:
    """What one derive step wrote."""

    trials: int
    derived: int
    producer_chains: int
    run_ids: tuple[str, ...]
    issues: int
    documents: int = 0

    def describe(self) -> str:
        return (
            f"derived {self.derived} chains over {self.trials} trials in {len(self.run_ids)} "
            f"runs ({self.producer_chains} producer chains stored, {self.issues} trial issues)"
        )


def derive_traces(
    db: Database,
    trace_ids: Sequence[bytes] | None,
    *,
    analyzer: int = STAGE_ANALYZER_VERSION,
    content_changed: bool = True,
    batch_traces: int = DEFAULT_BATCH_TRACES,
    materialize: bool = True,
    progress: ImportProgress | None = None,
) -> DeriveSummary:
    """Rebuild trials and chains for ``trace_ids`` (None: every trace).

    The traces are widened to whole runs and cut into batches of whole runs (memory stays
    bounded on large stores); each batch is replaced in one transaction.

    Args:
        content_changed: the traces' spans changed, so chains at *other* analyzer versions
            are stale too and are dropped; ``False`` replaces only this analyzer's rows.
        materialize: rebuild the analytics documents and funnels of the runs touched.
    """
    batches = run_batches(db.trace_runs(), batch_traces, touched=trace_ids)
    progress = progress or Silent()
    progress.start(Phase.DERIVE, sum(map(len, batches)), f"at analyzer {analyzer}")
    totals = [0, 0, 0, 0]
    runs: set[str] = set()
    for traces in batches:
        batch = _derive_batch(db, traces, analyzer, content_changed)
        progress.advance(len(traces))
        for k, value in enumerate(
            (batch.trials, batch.derived, batch.producer_chains, batch.issues)
        ):
            totals[k] += value
        runs.update(batch.run_ids)
    documents = 0
    if materialize and runs:
        progress.start(Phase.MATERIALIZE, len(runs))
        documents = materialize_runs(db.con, sorted(runs))
        progress.advance(len(runs))
    return DeriveSummary(totals[0], totals[1], totals[2], tuple(sorted(runs)), totals[3], documents)


def derive_pending(db: Database, progress: ImportProgress | None = None) -> DeriveSummary | None:
    """Derive (and materialize) everything imported but not derived yet, oldest source first,
    at the analyzer its import asked for; None when nothing was pending.

    The one entry point every writing verb calls before its own work. Idempotent: cut short
    again, it leaves the record in place and the next call derives the same traces again.
    """
    summaries = [_derive_group(db, group, progress) for group in db.pending_derivations()]
    return combined(summaries) if summaries else None


def _derive_group(
    db: Database, group: PendingGroup, progress: ImportProgress | None
) -> DeriveSummary:
    summary = derive_traces(db, group.trace_ids, analyzer=group.analyzer, progress=progress)
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


def run_batches(
    trace_runs: Sequence[tuple[bytes, str]],
    max_traces: int,
    *,
    touched: Sequence[bytes] | None = None,
) -> list[list[bytes]]:
    """Traces cut into batches of whole runs of at most ``max_traces`` (a larger run stays
    whole). With ``touched``, only the runs those traces belong to — every trace of them, so
    run-level facts (incomplete runs, id conflicts) see the whole run."""
    if touched is not None:
        wanted = set(touched)
        keys = {run_key for trace_id, run_key in trace_runs if trace_id in wanted}
        trace_runs = [(t, k) for t, k in trace_runs if k in keys]
    runs: dict[str, list[bytes]] = {}
    for trace_id, run_key in trace_runs:
        runs.setdefault(run_key, []).append(trace_id)
    batches: list[list[bytes]] = []
    current: list[bytes] = []
    for traces in runs.values():
        if current and len(current) + len(traces) > max_traces:
            batches.append(current)
            current = []
        current.extend(traces)
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True, slots=True)
class StagedBatch:
    """One batch of traces derived in memory: the tables that replace theirs, and counts."""

    traces: pa.Table  # the touched trace ids
    tables: dict[str, pa.Table]
    summary: DeriveSummary


def stage_batch(db: Database, traces: list[bytes], analyzer: int) -> StagedBatch:
    """Derive the trials of ``traces`` from their stored evidence, writing nothing."""
    evidence = load_trials(db, traces)
    derived = derive_chains([i for i in evidence.inputs if i is not None], analyzer=analyzer)
    chain, outcome, measurements = _derived_tables(evidence, derived, analyzer)
    setup, flags = _signal_tables(evidence)
    tables = {
        "trials": evidence.trials,
        "stage_chain": pa.concat_tables([chain, _conform(evidence.producer_chain, CHAIN)]),
        "trial_outcome": pa.concat_tables([outcome, _conform(evidence.producer_outcome, OUTCOME)]),
        "stage_measurements": pa.concat_tables(
            [measurements, _conform(evidence.producer_measurements, MEASUREMENTS)]
        ),
        "trial_issues": evidence.issues,
        "setup_signals": setup,
        "trial_flags": flags,
    }
    summary = DeriveSummary(
        evidence.trials.num_rows,
        len(derived),
        evidence.producer_outcome.num_rows,
        tuple(sorted(set(evidence.trials.column("run_id").to_pylist()))),
        evidence.issues.num_rows,
    )
    return StagedBatch(pa.table({"trace_id": pa.array(traces, TRACE_ID)}), tables, summary)


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


def _derive_batch(
    db: Database, traces: list[bytes], analyzer: int, content_changed: bool
) -> DeriveSummary:
    staged = stage_batch(db, traces, analyzer)
    write_batch(db, staged, analyzer, content_changed)
    return staged.summary


def load_trials(db: Database, trace_ids: Sequence[str | bytes]) -> TrialEvidence:
    """The evidence adapter over the stored rows of the given traces."""
    spans, attributes = db.trial_rows(trace_ids)
    return build_trials(spans, attributes, source_runs=db.trial_sources(trace_ids))


def _derived_tables(
    evidence: TrialEvidence, chains: list[StageDerivation], analyzer: int
) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Column-wise rows of the derived chains, outcomes and measurements (one pass)."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    spans = evidence.every_timed_spans()
    chain_trials: list[int] = []  # trial index per chain
    stage_rows: list[tuple[str, str, str | None, str | None]] = []
    meas_rows: list[tuple[str, str, float | None]] = []
    outcome: dict[str, list[object]] = {n: [] for n in OUTCOME.names[4:]}
    derived = iter(chains)
    for i, inp in enumerate(evidence.inputs):
        if inp is None:  # contract version ahead: never coerced, no derived chain (§5.2)
            continue
        chain = next(derived)
        chain_trials.append(i)
        measured = derive_measurements(chain, spans[i])
        stage_rows.extend(
            (
                r.stage.value,
                r.state.value,
                r.reason.value if r.reason else None,
                _evidence_json(r.evidence.to_wire()) if r.evidence else None,
            )
            for r in chain.stage_results
        )
        meas_rows.extend(
            (m.stage.value, m.reach.value, float(m.latency.value) if m.latency else None)
            for m in measured.rows
        )
        disagreements = stage_measurement_disagreements(
            measured, chain.stage_results, chain.stage_analyzer_version
        )
        for name, value in (
            ("first_failed_stage", chain.first_failed_stage),
            ("failure_category", chain.failure_category),
            ("chain_verified", chain_is_well_formed(chain.stage_results)),
            ("measurements_present", True),
            ("measurements_verified", not disagreements),
            ("measurements_schema_version", STAGE_MEASUREMENTS_SCHEMA_VERSION),
            ("measurements_analyzer_version", measured.stage_analyzer_version),
        ):
            outcome[name].append(value.value if isinstance(value, Enum) else value)
    six = len(STAGES)
    per_stage = [t for t in chain_trials for _ in range(six)]
    keys = {
        "trial_id": [ids[t] for t in per_stage],
        "run_id": [runs[t] for t in per_stage],
        "source": ["derived"] * len(per_stage),
        "analyzer_version": [analyzer] * len(per_stage),
        "stage_index": list(range(six)) * len(chain_trials),
    }
    chain_cols = (
        dict(
            zip(
                ("stage", "state", "reason", "evidence"), zip(*stage_rows, strict=True), strict=True
            )
        )
        if stage_rows
        else {}
    )
    meas_cols = (
        dict(zip(("stage", "reach", "latency_ms"), zip(*meas_rows, strict=True), strict=True))
        if meas_rows
        else {}
    )
    head = {
        "trial_id": [ids[t] for t in chain_trials],
        "run_id": [runs[t] for t in chain_trials],
        "source": ["derived"] * len(chain_trials),
        "analyzer_version": [analyzer] * len(chain_trials),
    }
    return (
        _table({**keys, **{k: list(v) for k, v in chain_cols.items()}}, CHAIN),
        _table({**head, **outcome}, OUTCOME),
        _table({**keys, **{k: list(v) for k, v in meas_cols.items()}}, MEASUREMENTS),
    )


def _signal_tables(evidence: TrialEvidence) -> tuple[pa.Table, pa.Table]:
    """Setup signals (one row per trial per phase) and evaluator flags, from the inputs."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    setup: dict[str, list[object]] = {name: [] for name in SETUP_SIGNALS.names}
    flags: dict[str, list[object]] = {name: [] for name in TRIAL_FLAGS.names}
    for i, inp in enumerate(evidence.inputs):
        if inp is None:
            continue
        ev = inp.evidence
        flags["trial_id"].append(ids[i])
        flags["run_id"].append(runs[i])
        flags["evaluator_errored"].append(ev.evaluator_errored)
        signals = ev.setup_signals
        for phase in SetupPhase:
            signal = getattr(signals, phase.value, None) if signals is not None else None
            if signal is None:
                continue
            for name, value in (
                ("trial_id", ids[i]),
                ("run_id", runs[i]),
                ("phase", phase.value),
                ("outcome", str(signal.outcome)),
                ("attribution", signal.attribution),
                ("egress_verified", signal.egress_verified),
                ("duration_ms", None if signal.duration_ms is None else float(signal.duration_ms)),
            ):
                setup[name].append(value)
    return _table(setup, SETUP_SIGNALS), _table(flags, TRIAL_FLAGS)


def _table(columns: dict[str, list[object]], schema: pa.Schema) -> pa.Table:
    if not columns.get("trial_id"):
        return schema.empty_table()
    return pa.table(columns, schema=schema)


def _evidence_json(wire: dict[str, object]) -> str:
    """JSON.stringify-compatible text; orjson unless a lone surrogate needs JS escaping."""
    try:
        return orjson.dumps(wire).decode()
    except TypeError:
        return js_json(wire)


def chain_is_well_formed(rows: Sequence[StageResult]) -> bool:
    """Our own check of CONTRACT §2.1 for a chain we derived: six rows, in stage order."""
    return len(rows) == len(STAGES) and all(
        row.stage is stage for row, stage in zip(rows, STAGES, strict=True)
    )


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    columns = {}
    for field in schema:
        if field.name in table.column_names:
            columns[field.name] = table.column(field.name).cast(field.type)
        else:
            columns[field.name] = pa.nulls(table.num_rows, field.type)
    return pa.table(columns, schema=schema)
