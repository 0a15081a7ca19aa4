"""The parts of the stage analytics document: strict base, exclusions, latency, stage tallies.

Strict on every boundary: unknown keys are errors, counts are ints (never bools or floats),
an optional key is either present with a value or absent — never `null` (CONTRACT §0.2). The
`MISSING` sentinel expresses "absent": such a field is omitted when serialising and is not
nullable in the generated JSON Schema.

Invariants checked here (beyond types): the tally arithmetic of §5.3, the latency bounds of
§5.7, and the consequences of §5.5 a writer must keep within one stage: reasons in vocabulary
order without repeats, and `excluded` holding only the per-stage classes, equal to the
tally's counts. Apart from `documents.py` because two things are built from these parts: the
stored document and the rates read off a tally (`rates.py`).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Final, Literal

from pydantic import (
    MISSING,
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from valuechain.contract.vocab import (
    ExcludedTrialDetail,
    FailureCategory,
    MaterializationState,
    SetupPhase,
    Stage,
    StageExclusionClass,
    StageReason,
)

# Classes counted per trial (slice/run level, §5.3, §5.5); the rest are per stage observation.
TRIAL_EXCLUSION_CLASSES: Final = frozenset(
    {StageExclusionClass.LIFECYCLE, StageExclusionClass.INTEGRITY, StageExclusionClass.VERSION}
)

_REASON_ORDER: Final = {reason: i for i, reason in enumerate(StageReason)}


def _js_number(value: float) -> int | float:
    """Integral floats print without a fraction, as `JSON.stringify` does (§0.2 trap 3)."""
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


Count = Annotated[int, Field(ge=0)]
PositiveCount = Annotated[int, Field(ge=1)]
Version = Annotated[int, Field(ge=1)]
EpochMs = Annotated[int, Field(ge=0)]
NonEmpty = Annotated[str, Field(min_length=1)]
Millis = Annotated[
    float,
    Field(ge=0),
    AfterValidator(_finite),
    PlainSerializer(_js_number, return_type=int | float, when_used="json"),
]
# Vocabulary fields take the wire string (JSON or a parsed dict) or the enum member; being a
# StrEnum, only an exact wire value passes.
StageField = Annotated[Stage, Field(strict=False)]
ReasonField = Annotated[StageReason, Field(strict=False)]
CategoryField = Annotated[FailureCategory, Field(strict=False)]
PhaseField = Annotated[SetupPhase, Field(strict=False)]
StateField = Annotated[MaterializationState, Field(strict=False)]
Fraction = Annotated[
    float,
    Field(ge=0, le=1),
    PlainSerializer(_js_number, return_type=int | float, when_used="json"),
]


class StrictModel(BaseModel):
    """Closed object: unknown keys refused, no coercion, camelCase on the wire."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        use_enum_values=False,
    )


# --- exclusions (§1.8, §5.1) ---------------------------------------------------------------


class Exclusions(StrictModel):
    """Counts per exclusion class; a class that excluded nothing is absent, never 0."""

    lifecycle: PositiveCount | MISSING = MISSING
    integrity: PositiveCount | MISSING = MISSING
    version: PositiveCount | MISSING = MISSING
    not_applicable: PositiveCount | MISSING = MISSING
    reach_unknown: PositiveCount | MISSING = MISSING
    not_measured: PositiveCount | MISSING = MISSING

    def counts(self) -> dict[StageExclusionClass, int]:
        """The present classes in vocabulary order."""
        return _present(self, StageExclusionClass)

    def total(self) -> int:
        return sum(self.counts().values())


class ExcludedTrialDetail_(StrictModel):  # noqa: N801 — the vocab enum owns the plain name
    """The 14 run-level coverage-detail keys (§1.8, §7.4); zero counts absent."""

    not_terminal: PositiveCount | MISSING = MISSING
    skipped: PositiveCount | MISSING = MISSING
    cancelled: PositiveCount | MISSING = MISSING
    setup_failed: PositiveCount | MISSING = MISSING
    timed_out: PositiveCount | MISSING = MISSING
    execution_failed: PositiveCount | MISSING = MISSING
    evaluator_error: PositiveCount | MISSING = MISSING
    chain_missing: PositiveCount | MISSING = MISSING
    chain_unverified: PositiveCount | MISSING = MISSING
    chain_version_ahead: PositiveCount | MISSING = MISSING
    measurements_missing: PositiveCount | MISSING = MISSING
    measurements_invalid: PositiveCount | MISSING = MISSING
    measurements_version_ahead: PositiveCount | MISSING = MISSING
    analyzer_mismatch: PositiveCount | MISSING = MISSING

    def counts(self) -> dict[ExcludedTrialDetail, int]:
        """The present detail keys in vocabulary order."""
        return _present(self, ExcludedTrialDetail)


CoverageDetail = ExcludedTrialDetail_


def _present(model: BaseModel, vocabulary: type[Any]) -> dict[Any, int]:
    values = model.__dict__
    out: dict[Any, int] = {}
    for member, name in _FIELD_NAMES[vocabulary]:
        value = values[name]
        if value is not MISSING:
            out[member] = value
    return out


def snake_case(camel: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)


_FIELD_NAMES: Final[dict[type[Any], tuple[tuple[Any, str], ...]]] = {
    vocabulary: tuple((member, snake_case(member.value)) for member in vocabulary)
    for vocabulary in (StageExclusionClass, ExcludedTrialDetail)
}


# --- latency (§5.7) ------------------------------------------------------------------------


def _check_latency(n: int, total: float, lo: float, hi: float) -> None:
    if lo > hi:
        raise ValueError(f"minMs {lo} exceeds maxMs {hi}")
    if total < lo * n or total > hi * n:
        raise ValueError(
            f"totalMs {total} is outside [minMs, maxMs] × sampleCount ({lo}, {hi}) × {n}: "
            "the bounds describe another sample set"
        )


class StageLatency(StrictModel):
    """Per-stage latency: the union of the spans a row cites (§4, §5.7)."""

    unit: Literal["ms"]
    basis: Literal["evidence_span_union"]
    sample_count: PositiveCount
    total_ms: Millis
    min_ms: Millis
    max_ms: Millis

    @model_validator(mode="after")
    def _bounds(self) -> StageLatency:
        _check_latency(self.sample_count, self.total_ms, self.min_ms, self.max_ms)
        return self

    @property
    def mean_ms(self) -> float:
        """`totalMs / sampleCount`; an absent aggregate has no mean (never 0)."""
        return self.total_ms / self.sample_count


class SetupLatency(StrictModel):
    """Setup-phase wall time, one sample per attempt (§5.6, §5.7)."""

    unit: Literal["ms"]
    basis: Literal["setup_phase_wall"]
    sample_count: PositiveCount
    total_ms: Millis
    min_ms: Millis
    max_ms: Millis

    @model_validator(mode="after")
    def _bounds(self) -> SetupLatency:
        _check_latency(self.sample_count, self.total_ms, self.min_ms, self.max_ms)
        return self


# --- per-stage tally (§5.3) ----------------------------------------------------------------


class ReasonCount(StrictModel):
    reason: ReasonField
    count: PositiveCount


class StageTally(StrictModel):
    """One stage's counts within one slice; every field counts trials."""

    stage: StageField
    applicable: Count
    reached: Count
    not_reached: Count
    reach_unknown: Count
    measured: Count
    passed: Count
    failed: Count
    not_measured: Count
    not_applicable: Count
    excluded: Exclusions
    reasons: Annotated[list[ReasonCount], Field(max_length=len(StageReason))]
    latency: StageLatency | MISSING = MISSING

    @model_validator(mode="after")
    def _arithmetic(self) -> StageTally:
        v = self.__dict__  # hot path: ~600 tallies per document
        measured, reached, not_measured = v["measured"], v["reached"], v["not_measured"]
        not_applicable, reach_unknown = v["not_applicable"], v["reach_unknown"]
        if v["passed"] + v["failed"] != measured:
            raise ValueError(f"measured {measured} is not passed + failed")
        if measured + not_measured != reached:
            raise ValueError(f"reached {reached} is not measured + notMeasured")
        if reached + v["not_reached"] + reach_unknown != v["applicable"]:
            raise ValueError(
                f"applicable {v['applicable']} is not reached + notReached + reachUnknown"
            )
        latency = v["latency"]
        if latency is not MISSING and latency.sample_count > reached:
            raise ValueError("latency sampleCount exceeds reached")
        x = v["excluded"].__dict__
        if (
            x["lifecycle"] is not MISSING
            or x["integrity"] is not MISSING
            or x["version"] is not MISSING
            or (0 if x["not_applicable"] is MISSING else x["not_applicable"]) != not_applicable
            or (0 if x["reach_unknown"] is MISSING else x["reach_unknown"]) != reach_unknown
            or (0 if x["not_measured"] is MISSING else x["not_measured"]) != not_measured
        ):
            raise ValueError(
                "excluded must count exactly notApplicable, reachUnknown and notMeasured"
            )
        last = -1
        for count in v["reasons"]:
            position = _REASON_ORDER[count.reason]
            if position <= last:
                raise ValueError("reasons must follow the vocabulary order without repeats")
            last = position
        return self
