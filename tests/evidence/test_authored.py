"""The authored case: as sent, else inferred per CONTRACT §2.3 — pinned to `derive`'s rules."""

from __future__ import annotations

import itertools
from pathlib import Path

from evidence_builders import contract, drop_attr, example_spans, role

from valuechain.contract.derivation import AuthoredCaseSource, AuthoredStep
from valuechain.derive import build_stage_authored_case
from valuechain.evidence.authored import CaseFacts, infer_authored_case

AUTHORED_KEYS = (
    "mcp.app.authored.mode",
    "mcp.app.authored.is_negative_test",
    "mcp.app.authored.expects_tool_call",
    "mcp.app.authored.expects_widget_render",
    "mcp.app.authored.assertion_count",
)
KINDS = (None, "toolCalledAtLeastOnce", "toolNeverCalled", "noToolErrors", "constructor")


def test_inference_matches_build_stage_authored_case() -> None:
    grid = itertools.product(
        (None, False, True),  # is_negative
        (None, "widget_probe"),  # case type
        (None, (), ({"toolName": "x"},)),  # case-level expected calls
        (False, True),  # expected output defined
        ((), (None,), ("toolNeverCalled", "noToolErrors"), ("toolCalledAtLeastOnce",), KINDS),
        ((), ((),), (({"toolName": "y"},),)),  # per-turn expected calls
        (False, True),  # needs a model
        (False, True),  # toolCall steps
    )
    for negative, case_type, expected, output, kinds, turns, model, steps in grid:
        ours = infer_authored_case(
            CaseFacts(negative, case_type, expected, output, kinds, turns, model, steps)
        )
        theirs = build_stage_authored_case(
            AuthoredCaseSource(
                is_negative_test=negative,
                expected_output="" if output else None,
                expected_tool_calls=expected,
                success_predicates=tuple({"type": k} if k else {} for k in kinds),
                case_type=case_type,
            ),
            case_needs_model=model,
            steps=(AuthoredStep("toolCall"),) if steps else (),
            turn_expected_tool_calls=turns,
        )
        assert ours == theirs


def test_inferred_case_equals_the_sent_one_where_graders_ran(shared: Path) -> None:
    """Strip `mcp.app.authored.*` from the example: the inference reproduces what the
    producer sent — for trials whose grader rows (the predicate list) were exported."""
    spans = example_spans(shared)
    sent = contract(shared, spans)
    for span in spans:
        if role(span) == "trial":
            drop_attr(span, *AUTHORED_KEYS)
    inferred = contract(shared, spans)
    graded = {s["traceId"] for s in spans if role(s) == "grader"}
    traces = [t.hex() for t in sent.trials.column("trace_id").to_pylist()]
    checked = 0
    for trace, a, b in zip(traces, sent.inputs, inferred.inputs, strict=True):
        assert a is not None and b is not None
        if trace in graded:
            assert b.authored == a.authored
            checked += 1
    assert checked == 6  # trials 3 (setup abort) and 7 (timed out) carry no grader rows
    # the mode is required: its absence is reported and integrity-excludes the trial
    assert set(inferred.trials.column("exclusion_class").to_pylist()) == {"integrity"}
