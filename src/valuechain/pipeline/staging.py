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
import pyarrow as pa

from valuechain.contract.chain import StageDerivation, StageResult
from valuechain.contract.derivation import StageDerivationInput
from valuechain.contract.tables import SETUP_SIGNALS, TRACE_ID, TRIAL_FLAGS
from valuechain.contract.tables import STAGE_CHAIN as CHAIN
from valuechain.contract.tables import STAGE_MEASUREMENTS as MEASUREMENTS
from valuechain.contract.tables import TRIAL_OUTCOME as OUTCOME
from valuechain.contract.versions import STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.contract.vocab import SetupPhase
from valuechain.contract.vocab_rules import STAGES
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
        return (
            f"derived {self.derived} chains over {self.trials} trials in {len(self.run_ids)} "
            f"runs ({self.producer_chains} producer chains stored, {self.issues} trial issues)"
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
        return stage_evidence(evidence, rows.traces, analyzer)
    finally:
        if was_enabled:
            gc.enable()


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


def _timed_spans(evidence: TrialEvidence) -> list[list[_Timed]]:
    """Every trial's spans, in the adapter's order, converted from Arrow once."""
    spans = evidence.spans
    flat = list(
        map(
            _Timed,
            spans.column("span_id").to_pylist(),
            spans.column("started_at").to_pylist(),
            spans.column("ended_at").to_pylist(),
        )
    )
    offsets = evidence.span_offsets
    return [flat[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


def _cites_spans(chain: StageDerivation) -> bool:
    return any(r.evidence is not None and r.evidence.span_ids for r in chain.stage_results)


def derived_tables(
    evidence: TrialEvidence, chains: Sequence[StageDerivation], analyzer: int
) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Column-wise rows of the derived chains, outcomes and measurements (one pass)."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    spans = _timed_spans(evidence)
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
        measured = derive_measurements(chain, spans[i] if _cites_spans(chain) else ())
        for r in results:
            stage.append(r.stage.value)
            state.append(r.state.value)
            reason.append(r.reason.value if r.reason else None)
            cited.append(_evidence_json(r.evidence.to_wire()) if r.evidence else None)
        for m in measured.rows:
            measured_stage.append(m.stage.value)
            reach.append(m.reach.value)
            latency.append(float(m.latency.value) if m.latency else None)
        ffs, fc = chain.first_failed_stage, chain.failure_category
        first_failed.append(ffs.value if ffs is not None else None)
        category.append(fc.value if fc is not None else None)
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
    """Setup signals (one row per trial per phase) and evaluator flags, from the inputs."""
    ids = evidence.trials.column("trial_id").to_pylist()
    runs = evidence.trials.column("run_id").to_pylist()
    setup: dict[str, list[object]] = {name: [] for name in SETUP_SIGNALS.names}
    flags: dict[str, list[object]] = {name: [] for name in TRIAL_FLAGS.names}
    for i, inp in enumerate(evidence.inputs):
        if inp is None:
            continue
        _signal_rows(inp, ids[i], runs[i], setup)
        flags["trial_id"].append(ids[i])
        flags["run_id"].append(runs[i])
        flags["evaluator_errored"].append(inp.evidence.evaluator_errored)
    return _table(setup, SETUP_SIGNALS), _table(flags, TRIAL_FLAGS)


def _signal_rows(
    inp: StageDerivationInput, trial_id: object, run_id: object, setup: dict[str, list[object]]
) -> None:
    signals = inp.evidence.setup_signals
    if signals is None:
        return
    for phase in SetupPhase:
        signal = getattr(signals, phase.value, None)
        if signal is None:
            continue
        for name, value in (
            ("trial_id", trial_id),
            ("run_id", run_id),
            ("phase", phase.value),
            ("outcome", str(signal.outcome)),
            ("attribution", signal.attribution),
            ("egress_verified", signal.egress_verified),
            ("duration_ms", None if signal.duration_ms is None else float(signal.duration_ms)),
        ):
            setup[name].append(value)


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
