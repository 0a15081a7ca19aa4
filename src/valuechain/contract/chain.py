"""What stage derivation produces: the six-row chain and its measurements (CONTRACT §2.1, §4).

`StageDerivation` (rows, first failed stage, failure category, analyzer stamp) and
`StageMeasurementsV1` (reach and latency per stage), each with its own `to_wire()` in the
key order the contract writes. Apart from the inputs (`derivation.py`) because they are the
other side of the one derivation function: evidence/ builds the inputs, derive/ returns these
and pipeline/ stores their wire form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from valuechain.contract.derivation import Number, WireDict
from valuechain.contract.versions import STAGE_MEASUREMENTS_SCHEMA_VERSION
from valuechain.contract.vocab import (
    LATENCY_BASIS_EVIDENCE_SPAN_UNION,
    LATENCY_UNIT,
    FailureCategory,
    Reach,
    Stage,
    StageReason,
    StageState,
)

MAX_EVIDENCE_REASONS: Final = 5
MAX_EVIDENCE_REASON_CHARS: Final = 500  # UTF-16 code units
MAX_EVIDENCE_SPAN_IDS: Final = 5


# --- §2.1 outputs ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StageEvidenceRefs:
    """`StageEvidenceRefs`: pointers back at the evidence a row was decided from."""

    span_ids: tuple[str, ...] | None = None
    prompt_indexes: tuple[Number, ...] | None = None
    predicate_reasons: tuple[str, ...] | None = None

    @property
    def has_keys(self) -> bool:
        """True when at least one key would be written (an empty list counts, §2.1)."""
        return not (
            self.span_ids is None and self.prompt_indexes is None and self.predicate_reasons is None
        )

    def to_wire(self) -> WireDict:
        """`{spanIds?, promptIndexes?, predicateReasons?}`."""
        out: WireDict = {}
        if self.span_ids is not None:
            out["spanIds"] = list(self.span_ids)
        if self.prompt_indexes is not None:
            out["promptIndexes"] = list(self.prompt_indexes)
        if self.predicate_reasons is not None:
            out["predicateReasons"] = list(self.predicate_reasons)
        return out


@dataclass(frozen=True, slots=True)
class StageResult:
    """`StageResultRow`; `evidence` is None unless the refs carry at least one key."""

    stage: Stage
    state: StageState
    reason: StageReason | None = None
    evidence: StageEvidenceRefs | None = None

    def to_wire(self) -> WireDict:
        """`{stage, state, reason?, evidence?}`."""
        out: WireDict = {"stage": self.stage.value, "state": self.state.value}
        if self.reason is not None:
            out["reason"] = self.reason.value
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_wire()
        return out


@dataclass(frozen=True, slots=True)
class StageDerivation:
    """`StageDerivation`: six rows in stage order plus the outcome and the analyzer stamp."""

    stage_results: tuple[StageResult, ...]
    stage_analyzer_version: int
    first_failed_stage: Stage | None = None
    failure_category: FailureCategory | None = None

    def to_wire(self) -> WireDict:
        """The metadata keys a chain occupies (`STAGE_METADATA_KEYS`), optional ones omitted."""
        out: WireDict = {"stageResults": [row.to_wire() for row in self.stage_results]}
        if self.first_failed_stage is not None:
            out["firstFailedStage"] = self.first_failed_stage.value
        if self.failure_category is not None:
            out["failureCategory"] = self.failure_category.value
        out["stageAnalyzerVersion"] = self.stage_analyzer_version
        return out


# --- §4 outputs --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LatencySample:
    """One stage's latency: the union length of the intervals of the spans its row cites."""

    value: Number
    unit: str = LATENCY_UNIT
    basis: str = LATENCY_BASIS_EVIDENCE_SPAN_UNION

    def to_wire(self) -> WireDict:
        """`{unit, basis, value}`."""
        return {"unit": self.unit, "basis": self.basis, "value": self.value}


@dataclass(frozen=True, slots=True)
class StageMeasurementRow:
    """One stage's reach and optional latency."""

    stage: Stage
    reach: Reach
    latency: LatencySample | None = None

    def to_wire(self) -> WireDict:
        """`{stage, reach, latency?}`."""
        out: WireDict = {"stage": self.stage.value, "reach": self.reach.value}
        if self.latency is not None:
            out["latency"] = self.latency.to_wire()
        return out


@dataclass(frozen=True, slots=True)
class StageMeasurements:
    """`StageMeasurementsV1`: six rows in stage order."""

    rows: tuple[StageMeasurementRow, ...]
    stage_analyzer_version: int
    schema_version: int = STAGE_MEASUREMENTS_SCHEMA_VERSION

    def to_wire(self) -> WireDict:
        """`{schemaVersion, stageAnalyzerVersion, rows}` (metadata key `stageMeasurements`)."""
        return {
            "schemaVersion": self.schema_version,
            "stageAnalyzerVersion": self.stage_analyzer_version,
            "rows": [row.to_wire() for row in self.rows],
        }
