"""Inferring the authored case from what a case declares (CONTRACT §2.3).

Reference: `stage-authored-case.ts` (`buildStageAuthoredCase`). Authors never toggle stages;
every field is inferred, so a stage the case never exercises is `notApplicable` rather than
an evidence gap. It lives in the contract because two stages need the one implementation:
the evidence adapter infers the case an export did not send, derivation reads the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from valuechain.contract.derivation import AuthoredCaseSource, AuthoredStep, StageAuthoredCase
from valuechain.contract.predicates import POSITIVE_TOOL_CALL_KINDS, is_selection_kind
from valuechain.contract.vocab import AuthoredMode

# Step kinds as the reference's `steps.ts` spells them (`isToolCallStep`, `isAssertStep`).
TOOL_CALL_STEP = "toolCall"
ASSERT_STEP = "assert"


def _is_widget_assertion(assertion: Mapping[str, object] | None) -> bool:
    """A DOM-level widget assertion carries a string `kind` (vs a transcript predicate)."""
    return assertion is not None and isinstance(assertion.get("kind"), str)


def _predicate_kind(assertion: Mapping[str, object] | None) -> str | None:
    """The predicate `type` of a transcript assertion; None for widget assertions."""
    if assertion is None or _is_widget_assertion(assertion):
        return None
    kind = assertion.get("type")
    return kind if isinstance(kind, str) else None


def _grades_user_value(kind: str | None) -> bool:
    """Everything but a routed selection kind counts as a user-value assertion (§9 Q5)."""
    return not is_selection_kind(kind)


def build_stage_authored_case(
    source: AuthoredCaseSource,
    *,
    case_needs_model: bool,
    steps: Iterable[AuthoredStep] = (),
    turn_expected_tool_calls: Iterable[tuple[object, ...] | None] = (),
) -> StageAuthoredCase:
    """`buildStageAuthoredCase` (CONTRACT §2.3).

    Args:
        source: the case-level fields.
        case_needs_model: whether any turn needs the model (a `prompt` step exists).
        steps: the resolved authored steps.
        turn_expected_tool_calls: each authored turn's `expectedToolCalls` (or the per-turn
            trace summaries', which mirror them).
    """
    steps = tuple(steps)
    assert_steps = [step for step in steps if step.kind == ASSERT_STEP]
    predicates = source.success_predicates or ()
    asserted_kinds = [_predicate_kind(step.assertion) for step in assert_steps]
    asserted_kinds += [_predicate_kind(predicate) for predicate in predicates]

    expects_tool_call = (
        bool(source.expected_tool_calls)
        or any(bool(calls) for calls in turn_expected_tool_calls)
        or any(step.kind == TOOL_CALL_STEP for step in steps)
        or any(kind in POSITIVE_TOOL_CALL_KINDS for kind in asserted_kinds if kind is not None)
    )
    expects_widget_render = source.case_type == "widget_probe" or any(
        _is_widget_assertion(step.assertion) for step in assert_steps
    )
    assertion_count = (
        sum(1 for p in predicates if _grades_user_value(_predicate_kind(p)))
        + (1 if source.expected_output is not None else 0)  # defined, even when empty
        + sum(1 for s in assert_steps if _grades_user_value(_predicate_kind(s.assertion)))
    )
    return StageAuthoredCase(
        mode=AuthoredMode.MODEL_DRIVEN if case_needs_model else AuthoredMode.MODEL_FREE,
        is_negative_test=source.is_negative_test,
        expects_tool_call=expects_tool_call,
        expects_widget_render=expects_widget_render,
        assertion_count=assertion_count,
    )
