"""CONTRACT §2.3 (inferring the authored case) and §2.1 wire rules of the shapes."""

from __future__ import annotations

from typing import Any

import pytest
from derive_notation import CASE, SPAN, TURN

from valuechain.contract.chain import StageEvidenceRefs, StageResult
from valuechain.contract.derivation import (
    AuthoredCaseSource,
    AuthoredStep,
    PredicateRef,
    PredicateResult,
    PromptSummary,
    StageAuthoredCase,
    StageDerivationInput,
    StageEvidence,
    ToolErrorRecord,
)
from valuechain.contract.vocab import Stage, StageReason, StageState
from valuechain.derive import build_stage_authored_case, derive_chain
from valuechain.derive.facts import new_refs, new_result


def assert_step(assertion: dict[str, Any]) -> AuthoredStep:
    return AuthoredStep("assert", assertion)


WIDGET_ASSERTION = {"kind": "widgetVisible", "selector": "#ok"}


@pytest.mark.parametrize(
    ("source", "steps", "turns", "expects_tool_call"),
    [
        (AuthoredCaseSource(), [], [], False),
        (AuthoredCaseSource(expected_tool_calls=({"toolName": "a"},)), [], [], True),
        (AuthoredCaseSource(expected_tool_calls=()), [], [], False),
        (AuthoredCaseSource(), [], [None, ({"toolName": "a"},)], True),
        (AuthoredCaseSource(), [AuthoredStep("toolCall")], [], True),
        (AuthoredCaseSource(), [assert_step({"type": "toolCalledAtLeastOnce"})], [], True),
        (AuthoredCaseSource(success_predicates=({"type": "firstToolWas"},)), [], [], True),
        # `toolNeverCalled` deliberately does not count; nor does a widget assertion
        (AuthoredCaseSource(success_predicates=({"type": "toolNeverCalled"},)), [], [], False),
        (
            AuthoredCaseSource(),
            [assert_step({**WIDGET_ASSERTION, "type": "firstToolWas"})],
            [],
            False,
        ),
    ],
)
def test_expects_tool_call(
    source: AuthoredCaseSource, steps: list[AuthoredStep], turns: list[Any], expects_tool_call: bool
) -> None:
    case = build_stage_authored_case(
        source, case_needs_model=True, steps=steps, turn_expected_tool_calls=turns
    )
    assert case.expects_tool_call is expects_tool_call


def test_mode_negative_and_widget() -> None:
    base = build_stage_authored_case(AuthoredCaseSource(), case_needs_model=False)
    assert base == StageAuthoredCase(
        "model_free", expects_tool_call=False, expects_widget_render=False, assertion_count=0
    )
    assert base.is_negative_test is None  # copied only when defined
    negative = build_stage_authored_case(
        AuthoredCaseSource(is_negative_test=False, case_type="widget_probe"), case_needs_model=True
    )
    assert (negative.mode, negative.is_negative_test, negative.expects_widget_render) == (
        "model_driven",
        False,
        True,
    )
    widget_step = build_stage_authored_case(
        AuthoredCaseSource(), case_needs_model=True, steps=[assert_step(WIDGET_ASSERTION)]
    )
    assert widget_step.expects_widget_render is True


def test_assertion_count() -> None:
    source = AuthoredCaseSource(
        expected_output="",  # defined, even empty, counts one
        success_predicates=(
            {"type": "responseContains", "needle": "x"},
            {"type": "noToolErrors", "role": "advisory"},  # advisory rows count (Q5)
            {"type": "toolNeverCalled"},  # a routed selection kind does not
            {"type": "toolCalledWith", "toolName": "a"},  # not a routed selection kind
            {"type": "constructor"},  # the JS `in` quirk makes it a selection kind (§2.5)
        ),
    )
    steps = [
        assert_step({"type": "toolDescriptionsPresent"}),  # discovery kinds count
        assert_step({"type": "onlyToolsCalled", "toolNames": []}),
        assert_step(WIDGET_ASSERTION),  # widget assertions count
        AuthoredStep("prompt"),
    ]
    case = build_stage_authored_case(source, case_needs_model=True, steps=steps)
    assert case.assertion_count == 1 + 3 + 2


# --- wire (§0.2, §2.1, Q17) ---------------------------------------------------------------


def test_empty_span_list_evidence_is_kept() -> None:
    """`call` failed by a protocol-error record with no coded span ⇒ `{spanIds: []}`."""
    evidence = StageEvidence(
        prompts=(TURN,),
        tool_errors=(ToolErrorRecord("protocol-error"), ToolErrorRecord("content-error")),
    )
    rows = derive_chain(StageDerivationInput(CASE, evidence)).to_wire()["stageResults"]
    assert rows[3] == {  # type: ignore[index]
        "stage": "call",
        "state": "failed",
        "reason": "protocolError",
        "evidence": {"spanIds": []},
    }


def test_content_error_record_turns_response_on_with_empty_span_list() -> None:
    case = StageAuthoredCase("model_driven", assertion_count=1)
    evidence = StageEvidence(tool_errors=(ToolErrorRecord("content-error"),), spans=(SPAN,))
    rows = derive_chain(StageDerivationInput(case, evidence)).to_wire()["stageResults"]
    assert rows[4] == {  # type: ignore[index]
        "stage": "response",
        "state": "failed",
        "reason": "toolError",
        "evidence": {"spanIds": []},
    }


def test_input_wire_omits_absent_keys() -> None:
    inp = StageDerivationInput(
        CASE,
        StageEvidence(
            spans=(SPAN,),
            prompts=(PromptSummary(0, missing=()),),
            predicate_results=(PredicateResult(False, predicate=PredicateRef("noToolErrors")),),
        ),
    )
    assert inp.to_wire() == {
        "authored": {"mode": "model_driven", "expectsToolCall": True, "assertionCount": 1},
        "evidence": {
            "spans": [
                {
                    "id": "s1",
                    "category": "tool",
                    "status": "ok",
                    "toolName": "list_files",
                    "promptIndex": 0,
                }
            ],
            "prompts": [{"promptIndex": 0, "missing": []}],  # a present empty list is kept
            "predicateResults": [{"passed": False, "predicate": {"type": "noToolErrors"}}],
        },
        "iteration": {"status": "completed"},
    }


def test_fast_constructed_outputs_equal_ordinary_ones() -> None:
    """facts.py builds frozen rows through slot descriptors; they must be the same objects."""

    refs = new_refs(span_ids=("s1",))
    assert refs == StageEvidenceRefs(span_ids=("s1",)) and hash(refs) == hash(
        StageEvidenceRefs(span_ids=("s1",))
    )
    args = (Stage.CALL, StageState.FAILED, StageReason.PROTOCOL_ERROR)
    assert new_result(*args, refs) == StageResult(*args, StageEvidenceRefs(span_ids=("s1",)))
    assert new_result(*args, None) == StageResult(*args)
    chain = derive_chain(StageDerivationInput(CASE, StageEvidence(spans=(SPAN,))))
    rebuilt = type(chain)(
        tuple(StageResult(r.stage, r.state, r.reason, r.evidence) for r in chain.stage_results),
        chain.stage_analyzer_version,
        chain.first_failed_stage,
        chain.failure_category,
    )
    assert chain == rebuilt and hash(chain) == hash(rebuilt)
