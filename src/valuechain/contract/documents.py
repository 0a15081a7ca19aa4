"""Pydantic model of the stage analytics document, `EvalStageAnalyticsV1` (CONTRACT §5).

The document with its slices and setup tallies, and its JSON Schema. The per-stage parts it
is built from, and the strict base they share, are in `tallies.py` (CONTRACT §0.2: closed
objects, absent keys omitted, never `null`). The one nullable field is an intent slice's
`intent` (`null` = unlabelled, a real slice, §5.2).

Serialisation (`to_json`) is the canonical form stored in the store: the contract's camelCase
keys in the contract's order, compact, non-ASCII unescaped, integral floats printed as ints
(`JSON.stringify`, CONTRACT §0.2 trap 3). Parsing and re-serialising a stored document gives
the same bytes.

Invariants checked here (beyond types): the setup bounds of §5.6, the document rules of §5.1
(one `overall` slice first, its `includedTrials` equal to the document's, included ≤ total,
unique setup phases), plus the consequences of §5.5 a writer must keep: stage tallies in
stage order, failure categories in vocabulary order without repeats, a trial's exclusions
only trial-level classes, `included + excluded = total`, and the coverage detail adding up to
the run's exclusion classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Annotated, Any, Final, Literal

from pydantic import MISSING, AfterValidator, ConfigDict, Field, model_validator

from valuechain.contract.tallies import (
    TRIAL_EXCLUSION_CLASSES,
    CategoryField,
    Count,
    CoverageDetail,
    EpochMs,
    Exclusions,
    NonEmpty,
    PhaseField,
    PositiveCount,
    SetupLatency,
    StageTally,
    StateField,
    StrictModel,
    Version,
)
from valuechain.contract.vocab import FailureCategory, SetupPhase, StageExclusionClass
from valuechain.contract.vocab_rules import EXCLUDED_TRIAL_DETAIL_CLASSES, STAGES

STAGE_ANALYTICS_SCHEMA_ID: Final = "https://mcpjam.com/schemas/eval-stage-analytics/v1.json"
JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

# Slice caps per dimension; `overall` is never truncated (CONTRACT §5.2).
MAX_INTENT_SLICES: Final = 50
MAX_MODEL_SLICES: Final = 25
MAX_HOST_SLICES: Final = 25
MAX_ANALYTICS_SLICES: Final = 1 + MAX_INTENT_SLICES + MAX_MODEL_SLICES + MAX_HOST_SLICES

_CATEGORY_ORDER: Final = {category: i for i, category in enumerate(FailureCategory)}


def _ordered(keys: Sequence[Any], order: dict[Any, int], what: str) -> None:
    positions = [order[k] for k in keys]
    if any(a >= b for a, b in pairwise(positions)):
        raise ValueError(f"{what} must follow the vocabulary order without repeats")


# --- slices (§5.2) -------------------------------------------------------------------------


class OverallSlice(StrictModel):
    dimension: Literal["overall"]


class IntentSlice(StrictModel):
    dimension: Literal["intent"]
    intent: NonEmpty | None  # null = unlabelled (a real slice); present either way


class ModelSlice(StrictModel):
    dimension: Literal["model"]
    provider: NonEmpty
    model: NonEmpty


class HostSlice(StrictModel):
    dimension: Literal["host"]
    host_key: NonEmpty
    host_name: NonEmpty | MISSING = MISSING
    execution_engine: NonEmpty | MISSING = MISSING


Slice = Annotated[
    OverallSlice | IntentSlice | ModelSlice | HostSlice, Field(discriminator="dimension")
]


class CategoryCount(StrictModel):
    category: CategoryField
    count: PositiveCount


class SliceRow(StrictModel):
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


class SetupTally(StrictModel):
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


class SliceTruncation(StrictModel):
    dimension: Literal["intent", "model", "host"]
    distinct_values: PositiveCount
    retained: Count


def _versions(values: list[int]) -> list[int]:
    if len(values) < 2 or any(a >= b for a, b in pairwise(values)):
        raise ValueError("must list at least two distinct versions in ascending order")
    return values


SourceVersions = Annotated[list[Version], AfterValidator(_versions)]


# --- the document (§5.1) -------------------------------------------------------------------


class StageAnalyticsV1(StrictModel):
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


# --- JSON Schema --------------------------------------------------------------------------


def stage_analytics_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of `EvalStageAnalyticsV1`, generated from the model.

    The cross-field invariants (tally arithmetic, latency bounds, one overall slice, …) are
    not expressible in JSON Schema; the model checks them.
    """
    schema = StageAnalyticsV1.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": JSON_SCHEMA_DIALECT, "$id": STAGE_ANALYTICS_SCHEMA_ID, **schema}
