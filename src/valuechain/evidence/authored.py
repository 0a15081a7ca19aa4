"""The authored case of a trial: as the export sends it, else inferred (CONTRACT §2.3;
TRACE-FORMAT §3.8).

TRACE-FORMAT §3.7: `authored.*` is copied from `mcp.app.authored.*`; when the producer did
not send it, it is inferred from the case keys and grader rows the export does carry, by
CONTRACT §2.3's one implementation (`contract.authored.build_stage_authored_case`, shared
with derivation), over the trace-side facts restated as the case source and steps it reads.

Foreign traces (§3.8) get CONTRACT's chat-session form instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from valuechain.contract.authored import TOOL_CALL_STEP, build_stage_authored_case
from valuechain.contract.derivation import AuthoredCaseSource, AuthoredStep, StageAuthoredCase
from valuechain.contract.vocab import AuthoredMode, ToolExpectation


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


def infer_authored_case(facts: CaseFacts) -> StageAuthoredCase:
    """`buildStageAuthoredCase` (CONTRACT §2.3) over what the export carries.

    Predicates arrive as grader rows (one per authored predicate); a gating `toolCalledWith`
    was promoted into the matcher and never arrives as a row. Assert steps are not exported,
    so only `successPredicates` and an expected output count towards `assertionCount`;
    model-free tool calls under the root stand for `toolCall` steps.
    """
    source = AuthoredCaseSource(
        is_negative_test=facts.is_negative,
        expected_output="" if facts.expected_output_defined else None,
        expected_tool_calls=facts.expected_tool_calls,
        success_predicates=tuple(
            {"type": kind} if kind is not None else {} for kind in facts.predicate_kinds
        ),
        case_type=facts.case_type,
    )
    steps = (AuthoredStep(TOOL_CALL_STEP),) if facts.has_tool_call_steps else ()
    return build_stage_authored_case(
        source,
        case_needs_model=facts.needs_model,
        steps=steps,
        turn_expected_tool_calls=facts.turn_expected_tool_calls,
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
