"""Typed inputs and outputs of stage derivation (CONTRACT §2.1, §2.2, §2.3, §2.4, §4).

Frozen, slotted dataclasses: derivation runs per trial at high volume, so there is no
validation on construction (ingestion validates; §9 Q6). Field names are snake_case; the
wire is camelCase, produced by `to_wire()`, which omits absent keys and never writes null
(CONTRACT §0.2). `None` on an optional field means *absent*; an empty tuple is a present
empty list — they differ on the wire (`evidence: {spanIds: []}`, §2.1, Q17).

String-typed fields accept the `vocab` StrEnum members as well as raw wire strings: the
analyzer compares exact strings (e.g. `mode == "model_driven"`, §9 Q6), so a misspelt value
behaves exactly as it does in the reference.

One module over the ~400-line guide, on purpose: it is data, the frozen input and output
types of the one derivation function, each a few lines of fields and its `to_wire()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Final, TypeAlias

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

Number: TypeAlias = int | float
"""A JS number: int or float, never bool (CONTRACT §0.2 trap 1)."""

WireDict: TypeAlias = dict[str, object]

MAX_EVIDENCE_REASONS: Final = 5
MAX_EVIDENCE_REASON_CHARS: Final = 500  # UTF-16 code units
MAX_EVIDENCE_SPAN_IDS: Final = 5

# Wire names that are not the plain camelCase of the field name.
_WIRE_NAME_OVERRIDES: Final[Mapping[str, str]] = {"kind_": "type"}


def _wire_name(name: str) -> str:
    override = _WIRE_NAME_OVERRIDES.get(name)
    if override is not None:
        return override
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _to_wire_value(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        out: WireDict = {}
        for f in fields(value):
            item = getattr(value, f.name)
            # None is absent; so is an empty list whose default is "absent" (StageEvidence).
            if item is not None and not (item == () and f.default == ()):
                out[_wire_name(f.name)] = _to_wire_value(item)
        return out
    if isinstance(value, tuple | list):
        return [_to_wire_value(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): _to_wire_value(v) for k, v in value.items()}
    return value


class _Wire:
    """Generic camelCase serialisation for the input shapes (absent ⇒ key omitted)."""

    __slots__ = ()

    def to_wire(self) -> WireDict:
        """The contract's camelCase JSON object, absent keys omitted."""
        wire = _to_wire_value(self)
        assert isinstance(wire, dict)
        return wire


# --- §2.2 inputs --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StageAuthoredCase(_Wire):
    """What the case asserts, inferred by §2.3 — makes `notApplicable` derivable."""

    mode: str  # AuthoredMode; compared as the exact string "model_driven"
    is_negative_test: bool | None = None
    expects_tool_call: bool | None = None
    expects_widget_render: bool | None = None
    assertion_count: int | None = None
    has_user_ask: bool | None = None
    tool_expectation: str | None = None  # ToolExpectation


@dataclass(frozen=True, slots=True)
class StageSpan(_Wire):
    """One captured span (`StageSpanLike`); timings are read only by §4 measurements."""

    id: str | None = None
    category: str | None = None
    status: str | None = None
    tool_name: str | None = None
    prompt_index: Number | None = None
    mcp_error_code: Number | None = None
    started_at: Number | None = None  # epoch ms
    ended_at: Number | None = None  # epoch ms


@dataclass(frozen=True, slots=True)
class PromptSummary(_Wire):
    """One turn's matcher summary (§2.4); `passed` is the turn's own verdict, never re-derived."""

    prompt_index: Number | None = None
    expected_tool_calls: tuple[object, ...] | None = None
    missing: tuple[object, ...] | None = None
    unexpected: tuple[object, ...] | None = None  # the matcher's `extra`
    argument_mismatches: tuple[object, ...] | None = None
    passed: bool | None = None


@dataclass(frozen=True, slots=True)
class PredicateRef(_Wire):
    """The predicate a result row came from; `kind_` is the wire `type` (§2.5)."""

    kind_: str | None = None
    tool_name: str | None = None
    role: str | None = None  # CheckRole; only the exact string "advisory" is advisory


@dataclass(frozen=True, slots=True)
class PredicateResult(_Wire):
    """One predicate result row; only `passed is False` fails (§2.5)."""

    passed: bool | None = None
    reason: str | None = None
    status: str | None = None  # "scored" (absent) | "error"
    predicate: PredicateRef | None = None


@dataclass(frozen=True, slots=True)
class ToolErrorRecord(_Wire):
    """A tool error the runner recorded: `content-error` or `protocol-error`."""

    kind: str | None = None  # ToolErrorKind
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class StepError(_Wire):
    """The fatal step error's layer; only `source == "model"` is read (§2.9)."""

    source: str | None = None  # StepErrorSource
    code: str | None = None
    http_status: Number | None = None


@dataclass(frozen=True, slots=True)
class RenderObservation(_Wire):
    """A widget render outcome; only `rendered` is success."""

    status: str | None = None  # RenderStatus


@dataclass(frozen=True, slots=True)
class ToolSignals(_Wire):
    """Tool inventory counts; only `tools_total_before > 0` is read."""

    tools_total_before: Number | None = None
    tools_exposed: Number | None = None


@dataclass(frozen=True, slots=True)
class SetupSignal(_Wire):
    """A run-level connect / tools-list outcome copied onto every iteration (§2.2)."""

    outcome: str  # SetupOutcome
    attribution: str | None = None  # SetupAttribution
    egress_verified: bool | None = None
    span_ids: tuple[str, ...] | None = None
    duration_ms: Number | None = None  # never moves a state


@dataclass(frozen=True, slots=True)
class SetupSignals(_Wire):
    """The connection and discovery setup signals."""

    connection: SetupSignal | None = None
    discovery: SetupSignal | None = None


@dataclass(frozen=True, slots=True)
class JudgeEvidence(_Wire):
    """Tier-2 goal-completion judge result (§2.8.6 rows 5–8)."""

    status: str  # JudgeStatus
    pending_kind: str | None = None  # JudgePendingKind
    verdict: str | None = None  # JudgeVerdict
    reasons: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class MetadataAttribution(_Wire):
    """Tier-2 "did tool metadata mislead the model" judge result (§2.11)."""

    status: str  # JudgeStatus
    pending_kind: str | None = None
    attributed: bool | None = None
    reasons: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class StageEvidence(_Wire):
    """Everything the trial captured (§2.2). Empty tuples and absence read the same."""

    spans: tuple[StageSpan, ...] = ()
    trace_lacks_span_channel: bool | None = None
    trace_absent: bool | None = None
    prompts: tuple[PromptSummary, ...] = ()
    predicate_results: tuple[PredicateResult, ...] = ()
    tool_errors: tuple[ToolErrorRecord, ...] = ()
    step_error: StepError | None = None
    render_observations: tuple[RenderObservation, ...] = ()
    tool_signals: ToolSignals | None = None
    setup_signals: SetupSignals | None = None
    evaluator_errored: bool | None = None
    judge_evidence: JudgeEvidence | None = None
    metadata_attribution: MetadataAttribution | None = None


@dataclass(frozen=True, slots=True)
class IterationInfo(_Wire):
    """The trial's lifecycle status; `error` is carried, never read."""

    status: str  # IterationStatus
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PolicyInfo(_Wire):
    """A policy block, represented (never enforced) by derivation; `reason` is never read."""

    blocked: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class StageDerivationInput(_Wire):
    """`StageDerivationInput` of CONTRACT §2.2."""

    authored: StageAuthoredCase
    evidence: StageEvidence = field(default_factory=StageEvidence)
    iteration: IterationInfo = field(default_factory=lambda: IterationInfo("completed"))
    policy: PolicyInfo | None = None


# --- §2.3 / §2.4 inputs ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuthoredCaseSource(_Wire):
    """The case fields §2.3 infers from; `expected_output=None` means undefined."""

    is_negative_test: bool | None = None
    expected_output: str | None = None
    expected_tool_calls: tuple[object, ...] | None = None
    success_predicates: tuple[Mapping[str, object], ...] | None = None
    case_type: str | None = None


@dataclass(frozen=True, slots=True)
class AuthoredStep(_Wire):
    """A resolved authored step: `kind` is `prompt`/`toolCall`/`interact`/`assert`."""

    kind: str
    assertion: Mapping[str, object] | None = None  # assert steps; widget ones carry `kind`


class Unset(Enum):
    """Marks an option a layer leaves undefined (it inherits), distinct from an explicit null."""

    UNSET = "unset"


UNSET: Final = Unset.UNSET


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """Resolved `EvalMatchOptions` (§2.4); `max_extra_tool_calls=None` is null (unbounded)."""

    argument_matching: str = "partial"  # partial | exact | ignore
    tool_call_order: str = "ignore"  # ignore | strict | superset
    max_extra_tool_calls: Number | None = None

    def to_wire(self) -> WireDict:
        """All three keys; `maxExtraToolCalls` is written as null when unbounded."""
        return {
            "toolCallOrder": self.tool_call_order,
            "maxExtraToolCalls": self.max_extra_tool_calls,
            "argumentMatching": self.argument_matching,
        }


@dataclass(frozen=True, slots=True)
class MatchOptionsLayer:
    """One suite / case / run-override layer of match options; undefined fields inherit."""

    argument_matching: str | None = None
    tool_call_order: str | None = None
    max_extra_tool_calls: Number | Unset | None = UNSET  # None = explicit null
    allow_extra_tool_calls: bool | None = None  # legacy: True ⇒ null, False ⇒ 0

    def to_wire(self) -> WireDict:
        """Defined keys only; an explicit null `maxExtraToolCalls` is kept."""
        out: WireDict = {}
        if self.tool_call_order is not None:
            out["toolCallOrder"] = self.tool_call_order
        if not isinstance(self.max_extra_tool_calls, Unset):
            out["maxExtraToolCalls"] = self.max_extra_tool_calls
        if self.allow_extra_tool_calls is not None:
            out["allowExtraToolCalls"] = self.allow_extra_tool_calls
        if self.argument_matching is not None:
            out["argumentMatching"] = self.argument_matching
        return out


@dataclass(frozen=True, slots=True)
class ToolCall(_Wire):
    """An expected or actual tool call; absent or null arguments compare as `{}` (§2.4)."""

    tool_name: str
    arguments: Mapping[str, object] | None = None


@dataclass(frozen=True, slots=True)
class ArgumentMismatch(_Wire):
    """An expected call paired by name only in pass 2: called with the wrong arguments."""

    tool_name: str
    expected_args: Mapping[str, object]
    actual_args: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ToolCallMatch(_Wire):
    """The matcher's result for one turn; `extra` becomes the turn's `unexpected`."""

    missing: tuple[ToolCall, ...]
    extra: tuple[ToolCall, ...]
    argument_mismatches: tuple[ArgumentMismatch, ...]
    passed: bool


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
