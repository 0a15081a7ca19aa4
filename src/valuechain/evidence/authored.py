"""The authored case of a trial: as the export sends it, else inferred (CONTRACT §2.3, §3.8).

TRACE-FORMAT §3.7: `authored.*` is copied from `mcp.app.authored.*`; when the producer did
not send it, it is inferred from the case keys and grader rows the export does carry, by the
rules of CONTRACT §2.3 (`buildStageAuthoredCase`). The layering keeps `evidence` from calling
`derive`, so the few lines of §2.3 are restated here over trace-side inputs;
`tests/evidence/test_authored.py` pins them to `derive.build_stage_authored_case`.

Foreign traces (§3.8) get CONTRACT's chat-session form instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from valuechain.contract.derivation import StageAuthoredCase
from valuechain.contract.vocab import AuthoredMode, ToolExpectation
from valuechain.evidence import conventions as cv


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What the export says about the case, read for §2.3 inference."""

    is_negative: bool | None
    case_type: str | None
    expected_tool_calls: tuple[object, ...] | None
    expected_output_defined: bool
    predicate_kinds: tuple[str | None, ...]  # every predicate row, advisory ones too (Q5)
    turn_expected_tool_calls: tuple[tuple[object, ...] | None, ...]
    needs_model: bool  # a turn or a model step exists (§3.7.1 (5): model-free otherwise)
    has_tool_call_steps: bool  # model-free tool calls under the root stand for toolCall steps


def is_selection_kind(kind: str | None) -> bool:
    """A routed selection kind, JS `in` quirk included (CONTRACT §2.5)."""
    return kind is not None and (
        kind in cv.ROUTED_SELECTION_KINDS or kind in cv.OBJECT_PROTOTYPE_NAMES
    )


def infer_authored_case(facts: CaseFacts) -> StageAuthoredCase:
    """`buildStageAuthoredCase` (CONTRACT §2.3) over what the export carries.

    Predicates arrive as grader rows (one per authored predicate); a gating `toolCalledWith`
    was promoted into the matcher and never arrives as a row. Assert steps are not exported,
    so only `successPredicates` and an expected output count towards `assertionCount`.
    """
    kinds = facts.predicate_kinds
    expects_tool_call = (
        bool(facts.expected_tool_calls)
        or any(bool(calls) for calls in facts.turn_expected_tool_calls)
        or facts.has_tool_call_steps
        or any(kind in cv.POSITIVE_TOOL_CALL_KINDS for kind in kinds if kind is not None)
    )
    assertion_count = sum(1 for kind in kinds if not is_selection_kind(kind)) + (
        1 if facts.expected_output_defined else 0
    )
    return StageAuthoredCase(
        mode=AuthoredMode.MODEL_DRIVEN if facts.needs_model else AuthoredMode.MODEL_FREE,
        is_negative_test=facts.is_negative,
        expects_tool_call=expects_tool_call,
        expects_widget_render=facts.case_type == cv.WIDGET_PROBE,
        assertion_count=assertion_count,
    )


@cache
def authored_as_sent(
    mode: str,
    is_negative_test: bool | None,
    expects_tool_call: bool | None,
    expects_widget_render: bool | None,
    assertion_count: int | None,
    has_user_ask: bool | None,
    tool_expectation: str | None,
) -> StageAuthoredCase:
    """`mcp.app.authored.*` as sent (absent keys stay absent); one object per distinct case."""
    return StageAuthoredCase(
        mode=mode,
        is_negative_test=is_negative_test,
        expects_tool_call=expects_tool_call,
        expects_widget_render=expects_widget_render,
        assertion_count=assertion_count,
        has_user_ask=has_user_ask,
        tool_expectation=tool_expectation,
    )


@cache
def chat_session_case(*, model_driven: bool, has_user_ask: bool) -> StageAuthoredCase:
    """CONTRACT's chat-session form for un-authored (foreign) traces (TRACE-FORMAT §3.8)."""
    return StageAuthoredCase(
        mode=AuthoredMode.MODEL_DRIVEN if model_driven else AuthoredMode.MODEL_FREE,
        has_user_ask=True if has_user_ask else None,
        tool_expectation=ToolExpectation.OPEN,
    )
