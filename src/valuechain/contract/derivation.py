"""Typed inputs of stage derivation and the wire base they share (CONTRACT §2.2, §2.3).

Frozen, slotted dataclasses: derivation runs per trial at high volume, so there is no
validation on construction (ingestion validates; §9 Q6). Field names are snake_case; the
wire is camelCase, produced by `to_wire()`, which omits absent keys and never writes null
(CONTRACT §0.2). `None` on an optional field means *absent*; an empty tuple is a present
empty list — they differ on the wire (`evidence: {spanIds: []}`, §2.1, Q17). The same holds
for the matcher's types (`matching.py`) and derivation's outputs (`chain.py`).

String-typed fields accept the `vocab` StrEnum members as well as raw wire strings: the
analyzer compares exact strings (e.g. `mode == "model_driven"`, §9 Q6), so a misspelt value
behaves exactly as it does in the reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Final, TypeAlias

Number: TypeAlias = int | float
"""A JS number: int or float, never bool (CONTRACT §0.2 trap 1)."""

WireDict: TypeAlias = dict[str, object]

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


class WireShape:
    """Generic camelCase serialisation for the input shapes (absent ⇒ key omitted)."""

    __slots__ = ()

    def to_wire(self) -> WireDict:
        """The contract's camelCase JSON object, absent keys omitted."""
        wire = _to_wire_value(self)
        assert isinstance(wire, dict)
        return wire


# --- §2.2 inputs --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StageAuthoredCase(WireShape):
    """What the case asserts, inferred by §2.3 — makes `notApplicable` derivable."""

    mode: str  # AuthoredMode; compared as the exact string "model_driven"
    is_negative_test: bool | None = None
    expects_tool_call: bool | None = None
    expects_widget_render: bool | None = None
    assertion_count: int | None = None
    has_user_ask: bool | None = None
    tool_expectation: str | None = None  # ToolExpectation


@dataclass(frozen=True, slots=True)
class StageSpan(WireShape):
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
class PromptSummary(WireShape):
    """One turn's matcher summary (§2.4); `passed` is the turn's own verdict, never re-derived."""

    prompt_index: Number | None = None
    expected_tool_calls: tuple[object, ...] | None = None
    missing: tuple[object, ...] | None = None
    unexpected: tuple[object, ...] | None = None  # the matcher's `extra`
    argument_mismatches: tuple[object, ...] | None = None
    passed: bool | None = None


@dataclass(frozen=True, slots=True)
class PredicateRef(WireShape):
    """The predicate a result row came from; `kind_` is the wire `type` (§2.5)."""

    kind_: str | None = None
    tool_name: str | None = None
    role: str | None = None  # CheckRole; only the exact string "advisory" is advisory


@dataclass(frozen=True, slots=True)
class PredicateResult(WireShape):
    """One predicate result row; only `passed is False` fails (§2.5)."""

    passed: bool | None = None
    reason: str | None = None
    status: str | None = None  # "scored" (absent) | "error"
    predicate: PredicateRef | None = None


@dataclass(frozen=True, slots=True)
class ToolErrorRecord(WireShape):
    """A tool error the runner recorded: `content-error` or `protocol-error`."""

    kind: str | None = None  # ToolErrorKind
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class StepError(WireShape):
    """The fatal step error's layer; only `source == "model"` is read (§2.9)."""

    source: str | None = None  # StepErrorSource
    code: str | None = None
    http_status: Number | None = None


@dataclass(frozen=True, slots=True)
class RenderObservation(WireShape):
    """A widget render outcome; only `rendered` is success."""

    status: str | None = None  # RenderStatus


@dataclass(frozen=True, slots=True)
class ToolSignals(WireShape):
    """Tool inventory counts; only `tools_total_before > 0` is read."""

    tools_total_before: Number | None = None
    tools_exposed: Number | None = None


@dataclass(frozen=True, slots=True)
class SetupSignal(WireShape):
    """A run-level connect / tools-list outcome copied onto every iteration (§2.2)."""

    outcome: str  # SetupOutcome
    attribution: str | None = None  # SetupAttribution
    egress_verified: bool | None = None
    span_ids: tuple[str, ...] | None = None
    duration_ms: Number | None = None  # never moves a state


@dataclass(frozen=True, slots=True)
class SetupSignals(WireShape):
    """The connection and discovery setup signals."""

    connection: SetupSignal | None = None
    discovery: SetupSignal | None = None


@dataclass(frozen=True, slots=True)
class JudgeEvidence(WireShape):
    """Tier-2 goal-completion judge result (§2.8.6 rows 5–8)."""

    status: str  # JudgeStatus
    pending_kind: str | None = None  # JudgePendingKind
    verdict: str | None = None  # JudgeVerdict
    reasons: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class MetadataAttribution(WireShape):
    """Tier-2 "did tool metadata mislead the model" judge result (§2.11)."""

    status: str  # JudgeStatus
    pending_kind: str | None = None
    attributed: bool | None = None
    reasons: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class StageEvidence(WireShape):
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
class IterationInfo(WireShape):
    """The trial's lifecycle status; `error` is carried, never read."""

    status: str  # IterationStatus
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PolicyInfo(WireShape):
    """A policy block, represented (never enforced) by derivation; `reason` is never read."""

    blocked: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class StageDerivationInput(WireShape):
    """`StageDerivationInput` of CONTRACT §2.2."""

    authored: StageAuthoredCase
    evidence: StageEvidence = field(default_factory=StageEvidence)
    iteration: IterationInfo = field(default_factory=lambda: IterationInfo("completed"))
    policy: PolicyInfo | None = None


# --- §2.3 / §2.4 inputs ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuthoredCaseSource(WireShape):
    """The case fields §2.3 infers from; `expected_output=None` means undefined."""

    is_negative_test: bool | None = None
    expected_output: str | None = None
    expected_tool_calls: tuple[object, ...] | None = None
    success_predicates: tuple[Mapping[str, object], ...] | None = None
    case_type: str | None = None


@dataclass(frozen=True, slots=True)
class AuthoredStep(WireShape):
    """A resolved authored step: `kind` is `prompt`/`toolCall`/`interact`/`assert`."""

    kind: str
    assertion: Mapping[str, object] | None = None  # assert steps; widget ones carry `kind`
