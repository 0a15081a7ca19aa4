"""Pydantic models of the stage analytics document, `EvalStageAnalyticsV1` (CONTRACT §5).

Strict on every boundary: unknown keys are errors, counts are ints (never bools or floats),
an optional key is either present with a value or absent — never `null` (CONTRACT §0.2). The
`MISSING` sentinel expresses "absent": such a field is omitted when serialising and is not
nullable in the generated JSON Schema. The one nullable field is an intent slice's `intent`
(`null` = unlabelled, a real slice, §5.2).

Serialisation (`to_json`) is the canonical form stored in the store: the contract's camelCase
keys in the contract's order, compact, non-ASCII unescaped, integral floats printed as ints
(`JSON.stringify`, CONTRACT §0.2 trap 3). Parsing and re-serialising a stored document gives
the same bytes.

Invariants checked here (beyond types): the tally arithmetic of §5.3, the latency bounds of
§5.7, the setup bounds of §5.6, the document rules of §5.1 (one `overall` slice first, its
`includedTrials` equal to the document's, included ≤ total, unique setup phases), plus the
consequences of §5.5 a writer must keep: stage tallies in stage order, reasons and failure
categories in vocabulary order without repeats, a stage's `excluded` holding only per-stage
classes and a trial's exclusions only trial-level classes, `included + excluded = total`, and
the coverage detail adding up to the run's exclusion classes.

One module over the ~400-line guide, on purpose: the models of one document and the
cross-model invariants that validate it read together; split, a rule of §5.3 would sit apart
from the fields it constrains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import pairwise
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
from valuechain.contract.vocab_rules import EXCLUDED_TRIAL_DETAIL_CLASSES, STAGES

STAGE_ANALYTICS_SCHEMA_ID: Final = "https://mcpjam.com/schemas/eval-stage-analytics/v1.json"
JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

# Slice caps per dimension; `overall` is never truncated (CONTRACT §5.2).
MAX_INTENT_SLICES: Final = 50
MAX_MODEL_SLICES: Final = 25
MAX_HOST_SLICES: Final = 25
MAX_ANALYTICS_SLICES: Final = 1 + MAX_INTENT_SLICES + MAX_MODEL_SLICES + MAX_HOST_SLICES

# Classes counted per trial (slice/run level) and per stage observation (§5.3, §5.5).
TRIAL_EXCLUSION_CLASSES: Final = frozenset(
    {StageExclusionClass.LIFECYCLE, StageExclusionClass.INTEGRITY, StageExclusionClass.VERSION}
)
STAGE_EXCLUSION_CLASSES: Final = frozenset(
    {
        StageExclusionClass.NOT_APPLICABLE,
        StageExclusionClass.REACH_UNKNOWN,
        StageExclusionClass.NOT_MEASURED,
    }
)

_REASON_ORDER: Final = {reason: i for i, reason in enumerate(StageReason)}
_CATEGORY_ORDER: Final = {category: i for i, category in enumerate(FailureCategory)}


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


class _Strict(BaseModel):
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


class Exclusions(_Strict):
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


class ExcludedTrialDetail_(_Strict):  # noqa: N801 — the vocab enum owns the plain name
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


def _snake(camel: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)


_FIELD_NAMES: Final[dict[type[Any], tuple[tuple[Any, str], ...]]] = {
    vocabulary: tuple((member, _snake(member.value)) for member in vocabulary)
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


class StageLatency(_Strict):
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


class SetupLatency(_Strict):
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


class ReasonCount(_Strict):
    reason: ReasonField
    count: PositiveCount


class StageTally(_Strict):
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


def _n(count: int | Any) -> int:
    """A count that may be absent: absent counts 0."""
    return 0 if count is MISSING else int(count)


def _ordered(keys: Sequence[Any], order: dict[Any, int], what: str) -> None:
    positions = [order[k] for k in keys]
    if any(a >= b for a, b in pairwise(positions)):
        raise ValueError(f"{what} must follow the vocabulary order without repeats")


# --- slices (§5.2) -------------------------------------------------------------------------


class OverallSlice(_Strict):
    dimension: Literal["overall"]


class IntentSlice(_Strict):
    dimension: Literal["intent"]
    intent: NonEmpty | None  # null = unlabelled (a real slice); present either way


class ModelSlice(_Strict):
    dimension: Literal["model"]
    provider: NonEmpty
    model: NonEmpty


class HostSlice(_Strict):
    dimension: Literal["host"]
    host_key: NonEmpty
    host_name: NonEmpty | MISSING = MISSING
    execution_engine: NonEmpty | MISSING = MISSING


Slice = Annotated[
    OverallSlice | IntentSlice | ModelSlice | HostSlice, Field(discriminator="dimension")
]


class CategoryCount(_Strict):
    category: CategoryField
    count: PositiveCount


class SliceRow(_Strict):
    """One marginal slice: included/excluded trials, failure buckets, six stage tallies."""

    slice: Slice
    included_trials: Count
    excluded_trials: Exclusions
    failure_categories: Annotated[list[CategoryCount], Field(max_length=len(FailureCategory))]
    stages: Annotated[list[StageTally], Field(min_length=6, max_length=6)]

    @model_validator(mode="after")
    def _shape(self) -> SliceRow:
        if tuple(t.stage for t in self.stages) != STAGES:
            raise ValueError("stages must be the six tallies in stage order")
        if not set(self.excluded_trials.counts()) <= TRIAL_EXCLUSION_CLASSES:
            raise ValueError("a slice excludes trials only as lifecycle, integrity or version")
        _ordered([c.category for c in self.failure_categories], _CATEGORY_ORDER, "categories")
        if sum(c.count for c in self.failure_categories) > self.included_trials:
            raise ValueError("failure categories count more trials than were included")
        for tally in self.stages:
            if tally.applicable + tally.not_applicable > self.included_trials:
                raise ValueError(f"stage {tally.stage} counts more trials than were included")
        return self


# --- setup (§5.6) --------------------------------------------------------------------------


class SetupTally(_Strict):
    """One setup phase: attempts per run+phase, impact per distinct trial."""

    phase: PhaseField
    unique_attempts: Count
    failed_attempts: Count
    server_attributed_failures: Count
    impacted_trials: Count
    latency: SetupLatency | MISSING = MISSING

    @model_validator(mode="after")
    def _bounds(self) -> SetupTally:
        if self.failed_attempts > self.unique_attempts:
            raise ValueError("failedAttempts exceeds uniqueAttempts")
        if self.server_attributed_failures > self.failed_attempts:
            raise ValueError("serverAttributedFailures exceeds failedAttempts")
        latency = self.latency
        if latency is not MISSING and latency.sample_count > self.unique_attempts:
            raise ValueError("setup latency sampleCount exceeds uniqueAttempts")
        return self


class SliceTruncation(_Strict):
    dimension: Literal["intent", "model", "host"]
    distinct_values: PositiveCount
    retained: Count


def _versions(values: list[int]) -> list[int]:
    if len(values) < 2 or any(a >= b for a, b in pairwise(values)):
        raise ValueError("must list at least two distinct versions in ascending order")
    return values


SourceVersions = Annotated[list[Version], AfterValidator(_versions)]


# --- the document (§5.1) -------------------------------------------------------------------


class StageAnalyticsV1(_Strict):
    """`EvalStageAnalyticsV1`: one run's materialised funnel (counts only, never rates)."""

    model_config = ConfigDict(
        title="EvalStageAnalyticsV1",
        json_schema_extra={"$id": STAGE_ANALYTICS_SCHEMA_ID},
    )

    schema_version: Literal[1]
    measurement_unit: Literal["trial"]
    run_id: NonEmpty
    suite_id: NonEmpty
    run_group_id: NonEmpty | MISSING = MISSING
    config_revision: NonEmpty | MISSING = MISSING
    case_set_fingerprint: NonEmpty | MISSING = MISSING
    organization_id: NonEmpty | MISSING = MISSING
    workspace_id: NonEmpty | MISSING = MISSING
    project_id: NonEmpty | MISSING = MISSING
    run_completed_at: EpochMs | MISSING = MISSING
    source_iteration_count: Count
    source_max_updated_at: EpochMs | MISSING = MISSING
    stage_analyzer_version: Version
    source_stage_analyzer_versions: SourceVersions | MISSING = MISSING
    measurements_schema_version: Version
    source_measurements_schema_versions: SourceVersions | MISSING = MISSING
    materialization_state: StateField
    created_at: EpochMs
    updated_at: EpochMs
    included_trials: Count
    excluded_trials: Exclusions
    total_trials: Count
    excluded_trial_detail: CoverageDetail
    slices: Annotated[list[SliceRow], Field(min_length=1, max_length=MAX_ANALYTICS_SLICES)]
    setup: Annotated[list[SetupTally], Field(max_length=len(SetupPhase))]
    slice_truncation: (
        Annotated[list[SliceTruncation], Field(min_length=1, max_length=3)] | MISSING
    ) = MISSING

    @model_validator(mode="after")
    def _document(self) -> StageAnalyticsV1:
        overall = [s for s in self.slices if s.slice.dimension == "overall"]
        if len(overall) != 1 or self.slices[0].slice.dimension != "overall":
            raise ValueError("expected exactly one 'overall' slice, first")
        if overall[0].included_trials != self.included_trials:
            raise ValueError("the overall slice's includedTrials differs from the document's")
        if overall[0].excluded_trials != self.excluded_trials:
            raise ValueError("the overall slice's excludedTrials differs from the document's")
        if self.included_trials > self.total_trials:
            raise ValueError("includedTrials exceeds totalTrials")
        if self.source_iteration_count != self.total_trials:
            raise ValueError("sourceIterationCount must equal totalTrials (trials read)")
        classes = self.excluded_trials.counts()
        if not set(classes) <= TRIAL_EXCLUSION_CLASSES:
            raise ValueError("a run excludes trials only as lifecycle, integrity or version")
        if self.included_trials + sum(classes.values()) != self.total_trials:
            raise ValueError("includedTrials + excludedTrials must equal totalTrials")
        by_class: dict[StageExclusionClass, int] = {}
        for detail, count in self.excluded_trial_detail.counts().items():
            cls = EXCLUDED_TRIAL_DETAIL_CLASSES[detail]
            by_class[cls] = by_class.get(cls, 0) + count
        if by_class != classes:
            raise ValueError("excludedTrialDetail does not add up to excludedTrials")
        phases = [s.phase for s in self.setup]
        if phases != sorted(set(phases), key=list(SetupPhase).index):
            raise ValueError("setup phases must be unique, in phase order")
        _check_slice_order(self.slices)
        return self

    # ------------------------------------------------------------------ serialisation
    def to_json(self) -> str:
        """The canonical stored form: compact, camelCase, absent keys omitted."""
        return self.model_dump_json(by_alias=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> StageAnalyticsV1:
        """Parse and validate a stored document."""
        return cls.model_validate_json(text)


def _check_slice_order(slices: Sequence[SliceRow]) -> None:
    order = ("overall", "intent", "model", "host")
    dims = [order.index(s.slice.dimension) for s in slices]
    if dims != sorted(dims):
        raise ValueError("slices must be emitted overall, intent, model, host")
    caps = {"intent": MAX_INTENT_SLICES, "model": MAX_MODEL_SLICES, "host": MAX_HOST_SLICES}
    for dimension, cap in caps.items():
        if sum(1 for s in slices if s.slice.dimension == dimension) > cap:
            raise ValueError(f"more than {cap} {dimension} slices")


# --- the rate envelope (§5.8): derived on read, never stored -------------------------------


class MeasuredRate(_Strict):
    state: Literal["measured"]
    value: Fraction
    numerator: Count
    denominator: PositiveCount
    exclusions: Exclusions


class NotMeasuredRate(_Strict):
    state: Literal["notMeasured"]
    value: None
    numerator: Literal[0]
    denominator: Literal[0]
    exclusions: Exclusions


StageRate = Annotated[MeasuredRate | NotMeasuredRate, Field(discriminator="state")]


def stage_rate(
    numerator: object, denominator: object, exclusions: Exclusions | None = None
) -> MeasuredRate | NotMeasuredRate:
    """`stageRate`: `notMeasured` unless 0 ≤ n ≤ d, d ≥ 1, both integers (CONTRACT §5.8)."""
    excl = exclusions if exclusions is not None else Exclusions()
    if (
        type(numerator) is not int
        or type(denominator) is not int
        or denominator <= 0
        or numerator < 0
        or numerator > denominator
    ):
        return NotMeasuredRate(
            state="notMeasured", value=None, numerator=0, denominator=0, exclusions=excl
        )
    return MeasuredRate(
        state="measured",
        value=numerator / denominator,
        numerator=numerator,
        denominator=denominator,
        exclusions=excl,
    )


def _with_not_measured(tally: StageTally, extra: StageExclusionClass) -> Exclusions:
    counts = {cls: n for cls, n in tally.excluded.counts().items()}
    value = tally.not_measured if extra is StageExclusionClass.NOT_MEASURED else tally.reach_unknown
    if value > 0:
        counts[extra] = value
    return Exclusions(**{_snake(cls.value): n for cls, n in counts.items()})


def measurement_coverage_rate(tally: StageTally) -> MeasuredRate | NotMeasuredRate:
    """Of the trials that reached the stage, how many were decided: `measured / reached`."""
    return stage_rate(
        tally.measured, tally.reached, _with_not_measured(tally, StageExclusionClass.NOT_MEASURED)
    )


def measured_pass_rate(tally: StageTally) -> MeasuredRate | NotMeasuredRate:
    """Of what was decided, how much passed: `passed / measured`."""
    return stage_rate(
        tally.passed, tally.measured, _with_not_measured(tally, StageExclusionClass.NOT_MEASURED)
    )


def reach_rate(tally: StageTally) -> MeasuredRate | NotMeasuredRate:
    """Of the trials whose reach is known, how many got here: `reached / (reached+notReached)`."""
    return stage_rate(
        tally.reached,
        tally.reached + tally.not_reached,
        _with_not_measured(tally, StageExclusionClass.REACH_UNKNOWN),
    )


RATE_FUNCTIONS: Final[dict[str, Callable[[StageTally], MeasuredRate | NotMeasuredRate]]] = {
    "measuredPassRate": measured_pass_rate,
    "reachRate": reach_rate,
    "measurementCoverageRate": measurement_coverage_rate,
}


# --- JSON Schema --------------------------------------------------------------------------


def stage_analytics_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of `EvalStageAnalyticsV1`, generated from the model.

    The cross-field invariants (tally arithmetic, latency bounds, one overall slice, …) are
    not expressible in JSON Schema; the model checks them.
    """
    schema = StageAnalyticsV1.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": JSON_SCHEMA_DIALECT, "$id": STAGE_ANALYTICS_SCHEMA_ID, **schema}
