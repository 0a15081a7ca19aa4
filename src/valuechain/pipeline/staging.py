"""One batch of traces derived in memory: stored rows → the tables that replace theirs.

Pure over Arrow (no store): `stage_rows` takes the rows ``sql/evidence`` reads for a batch of
whole runs, runs the evidence adapter and the analyzer, and returns every derived table as
Arrow, so a worker process can stage one batch while the store reads the next and writes the
last (`pipeline.derive.staged_batches`). Row order and every value match the per-trial
construction it replaced (the golden documents and ``tests/pipeline/test_staging.py`` hold it
byte for byte).
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import orjson
import polars as pl
import pyarrow as pa

from valuechain.contract.chain import StageDerivation, StageResult
from valuechain.contract.derivation import SetupSignal
from valuechain.contract.tables import DERIVED_EVIDENCE, SETUP_SIGNALS, TRACE_ID, TRIAL_FLAGS
from valuechain.contract.tables import STAGE_CHAIN as CHAIN
from valuechain.contract.tables import STAGE_MEASUREMENTS as MEASUREMENTS
from valuechain.contract.tables import TRIAL_OUTCOME as OUTCOME
from valuechain.contract.versions import STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.contract.vocab import SetupPhase
from valuechain.contract.vocab_rules import STAGES
from valuechain.contract.words import plural
from valuechain.derive import derive_chains, derive_measurements, stage_measurement_disagreements
from valuechain.derive.jssem import js_json
from valuechain.evidence.frames import ordered_attributes
from valuechain.evidence.trials import TrialEvidence, build_trials


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
        if not self.trials and self.documents:  # only documents a derive had left unwritten
            return f"wrote the analytics documents of {plural(len(self.run_ids), 'run')}"
        return (
            f"derived {plural(self.derived, 'chain')} over {plural(self.trials, 'trial')} in "
            f"{plural(len(self.run_ids), 'run')} ({plural(self.producer_chains, 'producer chain')}"
            f" stored, {plural(self.issues, 'trial issue')})"
        )


@dataclass(frozen=True, slots=True)
class StagedBatch:
    """One batch of traces derived in memory: the tables that replace theirs, and counts."""

    traces: pa.Table  # the touched trace ids
    tables: dict[str, pa.Table]
    summary: DeriveSummary


@dataclass(frozen=True, slots=True)
class BatchRows:
    """What the store holds for one batch: the adapter's inputs (``sql/evidence``; the
    attribute rows unordered)."""

    traces: list[bytes]
    spans: pa.Table
    attributes: pa.Table
    sources: dict[int, str]


def stage_rows(rows: BatchRows, analyzer: int) -> StagedBatch:
    """Derive the trials of one batch from its stored rows, writing nothing.

    The cyclic collector is paused meanwhile (the adapter and the analyzer create no cycles;
    refcounting frees everything), as `derive_chains` does for the analyzer alone.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        attributes = ordered_attributes(rows.attributes)
        evidence = build_trials(rows.spans, attributes, source_runs=rows.sources)
        staged = stage_evidence(evidence, rows.traces, analyzer)
        staged.tables["derived_evidence"] = evidence_stamps(rows.spans)
        return staged
    finally:
        if was_enabled:
            gc.enable()


def evidence_stamps(spans: pa.Table) -> pa.Table:
    """Per trace, the spans its chains are derived from: their count and last span row
    (``core.derived_evidence``; ``sql/derive/047`` stamps the touched traces with it). The
    batch's rows are every stored span of its traces, so the store is not read again."""
    frame = pl.from_arrow(spans.select(["trace_id", "span_row"]))
    assert isinstance(frame, pl.DataFrame)
    stamps = frame.group_by("trace_id", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("span_count"),
        pl.col("span_row").max().cast(pl.Int64).alias("last_span_row"),
    )
    return stamps.to_arrow().cast(DERIVED_EVIDENCE)


def stage_evidence(evidence: TrialEvidence, traces: list[bytes], analyzer: int) -> StagedBatch:
    """The derived tables of the adapter's output for ``traces``."""
    derived = derive_chains([i for i in evidence.inputs if i is not None], analyzer=analyzer)
    chain, outcome, measurements = derived_tables(evidence, derived, analyzer)
    setup, flags = signal_tables(evidence)
    tables = {
        "trials": evidence.trials,
        "stage_chain": pa.concat_tables([chain, conform(evidence.producer_chain, CHAIN)]),
        "trial_outcome": pa.concat_tables([outcome, conform(evidence.producer_outcome, OUTCOME)]),
        "stage_measurements": pa.concat_tables(
            [measurements, conform(evidence.producer_measurements, MEASUREMENTS)]
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


class _Timed(NamedTuple):
    """A span as §4 measurement reads it (`derive.measurements.TimedSpan`)."""

    id: str | None
    started_at: float | int | None
    ended_at: float | int | None


class _SpanColumns:
    """Every trial's spans in the adapter's order, as plain columns (converted from Arrow
    once); `cited` builds span objects only for the ids a chain cites."""

    def __init__(self, evidence: TrialEvidence) -> None:
        spans = evidence.spans
        self.ids = spans.column("span_id").to_pylist()
        self.starts = spans.column("started_at").to_pylist()
        self.ends = spans.column("ended_at").to_pylist()
        self.offsets = evidence.span_offsets

    def cited(self, i: int, chain: StageDerivation) -> list[_Timed]:
        """Trial ``i``'s spans whose id ``chain`` cites, in order: all that §4 measurement
        looks up (`derive_measurements` reads a span only by a cited id, the last span of
        an id winning, as here), so building an object per span of the trial (~8 ms of a
        batch) is not needed."""
        cited = {
            span_id
            for r in chain.stage_results
            if r.evidence is not None and r.evidence.span_ids
            for span_id in r.evidence.span_ids
        }
        if not cited:
            return []
        ids, starts, ends = self.ids, self.starts, self.ends
        return [
            _Timed(ids[j], starts[j], ends[j])
            for j in range(self.offsets[i], self.offsets[i + 1])
            if ids[j] in cited
        ]


def derived_tables(
    evidence: TrialEvidence, chains: Sequence[StageDerivation], analyzer: int
) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Column-wise rows of the derived chains, outcomes and measurements (one pass)."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    spans = _SpanColumns(evidence)
    chain_trials: list[int] = []  # trial index per chain
    stage, state, reason, cited = [], [], [], []
    measured_stage, reach, latency = [], [], []
    outcome: dict[str, list[object]] = {n: [] for n in OUTCOME.names[4:]}
    first_failed, category, verified = (
        outcome["first_failed_stage"],
        outcome["failure_category"],
        outcome["chain_verified"],
    )
    measurements_verified, measured_version = (
        outcome["measurements_verified"],
        outcome["measurements_analyzer_version"],
    )
    derived = iter(chains)
    for i, inp in enumerate(evidence.inputs):
        if inp is None:  # contract version ahead: never coerced, no derived chain (§5.2)
            continue
        chain = next(derived)
        chain_trials.append(i)
        results = chain.stage_results
        measured = derive_measurements(chain, spans.cited(i, chain))
        # The vocabulary's members are `str`s: Arrow stores them as their wire values, so
        # no `.value` lookup (an enum property, millions per batch) is needed.
        for r in results:
            stage.append(r.stage)
            state.append(r.state)
            reason.append(r.reason)
            cited.append(None if r.evidence is None else _evidence_json(r.evidence.to_wire()))
        for m in measured.rows:
            measured_stage.append(m.stage)
            reach.append(m.reach)
            latency.append(float(m.latency.value) if m.latency else None)
        first_failed.append(chain.first_failed_stage)
        category.append(chain.failure_category)
        verified.append(chain_is_well_formed(results))
        measurements_verified.append(
            not stage_measurement_disagreements(measured, results, chain.stage_analyzer_version)
        )
        measured_version.append(measured.stage_analyzer_version)
    n = len(chain_trials)
    outcome["measurements_agree"] = measurements_verified  # our own check, as for the producer's
    outcome["measurements_present"] = [True] * n
    outcome["measurements_schema_version"] = [STAGE_MEASUREMENTS_SCHEMA_VERSION] * n
    six = len(STAGES)
    trial_ids = [ids[t] for t in chain_trials]
    run_ids = [runs[t] for t in chain_trials]
    keys: dict[str, Sequence[object]] = {
        "trial_id": [t for t in trial_ids for _ in range(six)],
        "run_id": [r for r in run_ids for _ in range(six)],
        "source": ["derived"] * (six * n),
        "analyzer_version": [analyzer] * (six * n),
        "stage_index": list(range(six)) * n,
    }
    head: dict[str, Sequence[object]] = {
        "trial_id": trial_ids,
        "run_id": run_ids,
        "source": ["derived"] * n,
        "analyzer_version": [analyzer] * n,
    }
    chain_cols: dict[str, Sequence[object]] = {
        "stage": stage,
        "state": state,
        "reason": reason,
        "evidence": cited,
    }
    return (
        _table({**keys, **chain_cols}, CHAIN),
        _table({**head, **outcome}, OUTCOME),
        _table(
            {**keys, "stage": measured_stage, "reach": reach, "latency_ms": latency},
            MEASUREMENTS,
        ),
    )


def signal_tables(evidence: TrialEvidence) -> tuple[pa.Table, pa.Table]:
    """Setup signals (one row per trial per phase, in `SetupPhase` order) and evaluator
    flags, from the inputs: one pass, appending to the columns directly."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    setup: dict[str, list[object]] = {name: [] for name in SETUP_SIGNALS.names}
    flags: dict[str, list[object]] = {name: [] for name in TRIAL_FLAGS.names}
    s_trial, s_run, s_phase, s_outcome, s_attribution, s_egress, s_duration = setup.values()
    f_trial, f_run, f_errored = flags.values()
    phases = tuple(phase.value for phase in SetupPhase)
    for i, inp in enumerate(evidence.inputs):
        if inp is None:
            continue
        trial_id, run_id = ids[i], runs[i]
        signals = inp.evidence.setup_signals
        if signals is not None:
            for phase in phases:
                signal: SetupSignal | None = getattr(signals, phase)
                if signal is None:
                    continue
                s_trial.append(trial_id)
                s_run.append(run_id)
                s_phase.append(phase)
                s_outcome.append(str(signal.outcome))
                s_attribution.append(signal.attribution)
                s_egress.append(signal.egress_verified)
                duration = signal.duration_ms
                s_duration.append(None if duration is None else float(duration))
        f_trial.append(trial_id)
        f_run.append(run_id)
        f_errored.append(inp.evidence.evaluator_errored)
    return _table(setup, SETUP_SIGNALS), _table(flags, TRIAL_FLAGS)


def _table(columns: Mapping[str, Sequence[object]], schema: pa.Schema) -> pa.Table:
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


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    columns = {}
    for field in schema:
        if field.name in table.column_names:
            columns[field.name] = table.column(field.name).cast(field.type)
        else:
            columns[field.name] = pa.nulls(table.num_rows, field.type)
    return pa.table(columns, schema=schema)
