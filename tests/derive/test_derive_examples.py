"""CONTRACT §8.1: every worked stage-derivation example, as a table (id = example number).

Chains are written in the spec's compact notation (`derive_notation.py`), completed where
the spec abbreviates (`P`, `…`, "others as #1") by the rules of §2, as §8 says R rows follow.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from derive_notation import CASE, OK, SPAN, TURN, parse_chain, pred, render_chain

from valuechain.contract.derivation import (
    JudgeEvidence,
    MetadataAttribution,
    PolicyInfo,
    PredicateRef,
    PredicateResult,
    PromptSummary,
    RenderObservation,
    SetupSignal,
    SetupSignals,
    StageAuthoredCase,
    StageDerivationInput,
    StageEvidence,
    StageSpan,
    StepError,
    ToolSignals,
)
from valuechain.contract.matching import ToolCall
from valuechain.derive import derive_chain

S1 = "P:implied…{[s1]}"
EX1_HEAD = f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, P:observed{{[s1]}}"  # rows 1–5 of #1
EX1 = f"{EX1_HEAD}, P:observed"
ERR_SPAN = replace(SPAN, status="error", mcp_error_code=-32602)
NO_CODE_ERR_SPAN = replace(SPAN, status="error")


@dataclass(frozen=True)
class Example:
    id: str
    chain: str
    ff: str | None = None
    cat: str | None = None
    case: StageAuthoredCase = CASE
    status: str = "completed"
    policy: PolicyInfo | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def input(self) -> StageDerivationInput:
        evidence = {k: tuple(v) if isinstance(v, list) else v for k, v in self.evidence.items()}
        return StageDerivationInput(
            authored=self.case,
            evidence=StageEvidence(**evidence),
            iteration=replace(StageDerivationInput(CASE).iteration, status=self.status),
            policy=self.policy,
        )


def ex(
    id: str,
    chain: str,
    ff: str | None = None,
    cat: str | None = None,
    *,
    case: StageAuthoredCase = CASE,
    status: str = "completed",
    policy: PolicyInfo | None = None,
    **evidence: Any,
) -> Example:
    return Example(id, chain, ff, cat, case, status, policy, evidence)


def sig(outcome: str, attribution: str | None = None, egress: bool | None = None, ids=None):
    return SetupSignal(outcome, attribution, egress, None if ids is None else tuple(ids))


def conn(signal: SetupSignal) -> SetupSignals:
    return SetupSignals(connection=signal)


EX1_EVIDENCE = {"spans": [SPAN], "prompts": [TURN], "predicate_results": [OK]}
WIDGET = replace(CASE, expects_widget_render=True)
NEGATIVE = replace(CASE, is_negative_test=True)
OPEN = StageAuthoredCase("model_driven", tool_expectation="open", assertion_count=1)
CATALOG = PredicateResult(
    passed=False,
    reason="Missing description",
    predicate=PredicateRef("toolDescriptionsPresent", role="gating"),
)
EX49 = {
    "setup_signals": SetupSignals(sig("ok"), sig("ok")),
    "tool_signals": ToolSignals(tools_total_before=1),
}
DELETE_ALL = StageSpan(id="s1", category="tool", status="ok", tool_name="delete_all")
ATTRIBUTION_REASON = "The description for 'delete_all' says it searches files"
MISSING_SEARCH = PromptSummary(0, missing=(ToolCall("search"),))
EX56 = {"spans": [DELETE_ALL], "prompts": [MISSING_SEARCH]}
EX56_SELECTION = "F:missingToolCall{promptIndexes:[0]}"
EX56_CHAIN = f"{S1}, {S1}, SELECTION, P:observed{{[s1]}}, P:observed{{[s1]}}, NR"


def judge(status: str, verdict: str | None = None, kind: str | None = None) -> JudgeEvidence:
    return JudgeEvidence(status, pending_kind=kind, verdict=verdict)


def attribution(**kw: Any) -> MetadataAttribution:
    base: dict[str, Any] = {"status": "scored", "attributed": True}
    base["reasons"] = (ATTRIBUTION_REASON,)
    base.update(kw)
    return MetadataAttribution(**base)


# Example 58: ten reasons over 500 UTF-16 units each, astral-plane ones included (§0.2 trap 2).
LONG = tuple(("😀" * 300) if i % 2 else ("a" + "😀" * 260) for i in range(10))


def _cut(text: str) -> str:
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * 499]
    return units.decode("utf-16-le", "surrogatepass") + "…"


LONG_KEPT = ", ".join(json.dumps(_cut(r)) for r in LONG[:5])

EXAMPLES: list[Example] = [
    ex("1", EX1, **EX1_EVIDENCE),
    ex("2", "6×NM:traceAbsent", trace_absent=True),
    ex(
        "3",
        "2×NM:noEvidenceCaptured, 3×NM:executorEmitsNoSpans, NM:noEvidenceCaptured",
        trace_lacks_span_channel=True,
    ),
    ex("4-failed", "6×NM:setupAborted", None, "setup", status="failed", trace_absent=True),
    ex(
        "4-setup_failed",
        "6×NM:setupAborted",
        None,
        "setup",
        status="setup_failed",
        trace_absent=True,
    ),
    *[
        ex(
            f"5-{status}",
            "F:connectFailed{[run-connect-s1]}, 5×NR",
            "connection",
            "setup",
            status=status,
            trace_absent=True,
            setup_signals=conn(sig("failed", "theirs", True, ["run-connect-s1"])),
        )
        for status in ("failed", "setup_failed")
    ],
    *[
        ex(
            f"6-{name}",
            "NM:egressUnverified, 5×NM:noEvidenceCaptured",
            status="failed",
            setup_signals=conn(signal),
        )
        for name, signal in (
            ("theirs", sig("failed", "theirs")),
            ("unknown", sig("failed", "unknown")),
        )
    ],
    ex(
        "7",
        "NM:setupAborted, NM:traceAbsent, 4×NM:setupAborted",
        None,
        "setup",
        status="failed",
        trace_absent=True,
        setup_signals=conn(sig("failed", "ours")),
    ),
    ex(
        "8",
        f"{S1}, {S1}, NM:noEvidenceCaptured, P:observed{{[s1]}}, P:observed{{[s1]}}, "
        "NM:noEvidenceCaptured",
        spans=[SPAN],
        setup_signals=conn(sig("failed", "theirs", True)),
    ),
    ex(
        "9",
        "P:observed, F:toolsListFailed{[run-toolslist-s1]}, 4×NR",
        "discovery",
        "setup",
        status="failed",
        setup_signals=SetupSignals(sig("ok"), sig("failed", "theirs", ids=["run-toolslist-s1"])),
    ),
    ex(
        "10",
        "NM:noEvidenceCaptured, P:implied…{[s1]}, NM:noEvidenceCaptured, F:protocolError{[s1]}, "
        "NR, NR",
        "call",
        "setup",
        status="failed",
        spans=[replace(SPAN, status="error", mcp_error_code=-32001)],
    ),
    ex(
        "11",
        f"{S1}, {S1}, F:missingToolCall{{promptIndexes:[2]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, NR",
        "selection",
        "selection",
        spans=[SPAN],
        prompts=[PromptSummary(2, missing=(ToolCall("search"),))],
    ),
    ex(
        "12",
        f"{S1}, {S1}, F:unexpectedToolCall{{promptIndexes:[0]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, NR",
        "selection",
        "selection",
        case=NEGATIVE,
        spans=[SPAN],
        prompts=[PromptSummary(0, unexpected=(ToolCall("delete_all"),), passed=False)],
    ),
    ex(
        "13",
        f"{S1}, {S1}, P:observed{{promptIndexes:[0]}}, P:observed{{[s1]}}, P:observed{{[s1]}}, "
        "P:observed",
        spans=[SPAN],
        prompts=[replace(TURN, unexpected=(ToolCall("search"),))],
        predicate_results=[OK],
    ),
    ex(
        "14",
        f"{S1}, {S1}, NM:matchVerdictUnavailable{{promptIndexes:[0]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, NM:noEvidenceCaptured",
        spans=[SPAN],
        prompts=[PromptSummary(0, unexpected=(ToolCall("search"),))],
    ),
    ex(
        "15",
        f"{S1}, {S1}, P:observed{{promptIndexes:[0]}}, F:argumentMismatch{{promptIndexes:[0]}}, "
        "P:observed{[s1]}, NR",
        "call",
        "arguments",
        spans=[SPAN],
        prompts=[
            PromptSummary(
                0,
                unexpected=(ToolCall("search"),),
                argument_mismatches=(ToolCall("list_files"),),
                passed=False,
            )
        ],
    ),
    ex(
        "16",
        f"{S1}, {S1}, NA, P:observed{{[s1]}}, P:observed{{[s1]}}, P:observed",
        case=replace(CASE, mode="model_free"),
        **EX1_EVIDENCE,
    ),
    ex(
        "17",
        f"{S1}, {S1}, P:observed, F:protocolError{{[s1]}}, NR, NR",
        "call",
        "serverData",
        spans=[ERR_SPAN],
        prompts=[TURN],
    ),
    ex(
        "18",
        "NM:noEvidenceCaptured, P:implied…{[s1]}, P:observed, F:protocolError{[s1]}, NR, NR",
        "call",
        "setup",
        spans=[replace(ERR_SPAN, mcp_error_code=-32000)],
        prompts=[TURN],
    ),
    ex(
        "19",
        f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, F:toolError{{[s1]}}, NR",
        "response",
        "serverData",
        spans=[NO_CODE_ERR_SPAN],
        prompts=[TURN],
    ),
    ex(
        "20",
        f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, F:renderFailed, NR",
        "response",
        "serverData",
        case=WIDGET,
        spans=[SPAN],
        prompts=[TURN],
        render_observations=[RenderObservation("bridge_timeout")],
    ),
    ex(
        "21",
        f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, NM:noEvidenceCaptured, NM:noEvidenceCaptured",
        case=WIDGET,
        spans=[SPAN],
        prompts=[TURN],
    ),
    ex(
        "22",
        f"{S1}, {S1}, P:observed, NA, F:renderFailed, NR",
        "response",
        "serverData",
        case=StageAuthoredCase(
            "model_driven", expects_tool_call=False, expects_widget_render=True, assertion_count=0
        ),
        spans=[SPAN],
        prompts=[TURN],
        render_observations=[RenderObservation("mount_failed")],
    ),
    ex(
        "23",
        f"{S1}, {S1}, P:observed, NA, NA, P:observed",
        case=StageAuthoredCase("model_driven", expects_tool_call=False, assertion_count=1),
        **EX1_EVIDENCE,
    ),
    ex(
        "24",
        f"{EX1_HEAD}, F:predicateFailed{{predicateReasons:[\"expected 'Refunded' on screen\"]}}",
        "userValue",
        "userValue",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[OK, PredicateResult(False, "expected 'Refunded' on screen")],
    ),
    ex(
        "25",
        f"{S1}, {S1}, F:missingToolCall{{promptIndexes:[0]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, NA",
        "selection",
        "selection",
        case=replace(CASE, assertion_count=0),
        spans=[SPAN],
        prompts=[MISSING_SEARCH],
    ),
    ex("26", "6×NM:providerError", None, "setup", trace_absent=True, step_error=StepError("model")),
    ex(
        "27",
        "6×NM:providerError",
        None,
        "setup",
        prompts=[MISSING_SEARCH],
        step_error=StepError("model"),
    ),
    ex(
        "28",
        f"{S1}, {S1}, F:unexpectedToolCall{{promptIndexes:[0]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, NR:earlierStageFailed",
        "selection",
        "selection",
        spans=[SPAN],
        prompts=[PromptSummary(0, unexpected=(ToolCall("delete_all"),), passed=False)],
        step_error=StepError("model"),
    ),
    ex(
        "29",
        "F:connectFailed, 5×NR",
        "connection",
        "setup",
        setup_signals=conn(sig("failed", "theirs", True)),
        step_error=StepError("model"),
    ),
    ex("30", "6×NM:traceAbsent", trace_absent=True, step_error=StepError("setup")),
    ex(
        "31",
        "5×NM:providerError, NM:evaluatorError",
        None,
        "evaluator",
        trace_absent=True,
        evaluator_errored=True,
        step_error=StepError("model"),
    ),
    ex(
        "32",
        f"{EX1_HEAD}, NM:evaluatorError",
        None,
        "evaluator",
        spans=[SPAN],
        prompts=[TURN],
        evaluator_errored=True,
    ),
    ex(
        "33",
        f"{S1}, {S1}, P:observed, F:protocolError{{[s1]}}, NR, NR",
        "call",
        "serverData",
        spans=[ERR_SPAN],
        prompts=[TURN],
        evaluator_errored=True,
    ),
    ex("34", "6×NM:blockedByPolicy", policy=PolicyInfo(blocked=True), **EX1_EVIDENCE),
    *[
        ex(f"35-{status}", "6×NM:lifecycleStopped", None, "setup", status=status, **EX1_EVIDENCE)
        for status in ("cancelled", "timed_out", "skipped")
    ],
    ex(
        "35-setup_failed", "6×NM:setupAborted", None, "setup", status="setup_failed", **EX1_EVIDENCE
    ),
    ex(
        "36",
        "NM:noEvidenceCaptured, NM:noEvidenceCaptured, F:missingToolCall{promptIndexes:[0]}, "
        "NR, NR, NR",
        "selection",
        "selection",
        spans=[],
        trace_lacks_span_channel=True,
        prompts=[replace(MISSING_SEARCH, passed=False)],
    ),
    ex(
        "37",
        f"{S1}, {S1}, F:missingToolCall{{promptIndexes:[0]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, P:observed",
        "selection",
        "selection",
        spans=[SPAN],
        prompts=[replace(MISSING_SEARCH, passed=False)],
        predicate_results=[OK],
    ),
    ex(
        "38",
        "NM:noEvidenceCaptured, NM:noEvidenceCaptured, P:observed, "
        "P:observed{promptIndexes:[0]}, NM:executorEmitsNoSpans, P:observed",
        case=StageAuthoredCase(
            "model_driven", is_negative_test=True, expects_tool_call=False, assertion_count=1
        ),
        spans=[],
        trace_lacks_span_channel=True,
        prompts=[TURN],
        predicate_results=[PredicateResult(passed=True)],
    ),
    *[
        ex(
            f"39-{kind}",
            f'{S1}, {S1}, F:unexpectedToolCall{{predicateReasons:["{kind} says so"]}}, '
            "P:observed{[s1]}, P:observed{[s1]}, NR",
            "selection",
            "selection",
            spans=[SPAN],
            predicate_results=[pred(kind, False)],
        )
        for kind in (
            "toolNeverCalled",
            "firstToolWas",
            "onlyToolsCalled",
            "toolCallCountUnder",
            "toolCalledBefore",
            "noDestructiveToolCalled",
        )
    ],
    ex(
        "40",
        f"{S1}, {S1}, F:missingToolCall{{predicateReasons:"
        '["toolNeverCalled says so", "toolCalledAtLeastOnce says so"]}, '
        "P:observed{[s1]}, P:observed{[s1]}, NR",
        "selection",
        "selection",
        spans=[SPAN],
        predicate_results=[pred("toolNeverCalled", False), pred("toolCalledAtLeastOnce", False)],
    ),
    ex(
        "41",
        f"{S1}, {S1}, NM:noEvidenceCaptured, P:observed{{[s1]}}, P:observed{{[s1]}}, "
        'F:predicateFailed{predicateReasons:["no discriminator"]}',
        "userValue",
        "userValue",
        spans=[SPAN],
        predicate_results=[PredicateResult(False, "no discriminator")],
    ),
    ex(
        "42",
        f'{EX1_HEAD}, F:predicateFailed{{predicateReasons:["toolCalledWith says so"]}}',
        "userValue",
        "userValue",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[pred("toolCalledWith", False)],
    ),
    ex(
        "43",
        f"{S1}, {S1}, F:missingToolCall{{promptIndexes:[0]}}, P:observed{{[s1]}}, "
        "P:observed{[s1]}, NR",
        "selection",
        "selection",
        spans=[SPAN],
        prompts=[replace(TURN, missing=(ToolCall("fetch_order"),), passed=False)],
        predicate_results=[pred("toolNeverCalled", False)],
    ),
    ex(
        "44",
        f'{S1}, {S1}, F:unexpectedToolCall{{predicateReasons:["firstToolWas says so"]}}, '
        "P:observed{[s1]}, P:observed{[s1]}, NR",
        "selection",
        "selection",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[pred("firstToolWas", False)],
    ),
    *[
        ex(
            f"45-{kind}",
            f"{EX1_HEAD}, NM:noEvidenceCaptured",
            spans=[SPAN],
            prompts=[TURN],
            predicate_results=[
                PredicateResult(passed=False, predicate=PredicateRef(kind, role="advisory"))
            ],
        )
        for kind in ("responseContains", "toolCalledAtLeastOnce")
    ],
    ex(
        "46",
        "3×NM:noEvidenceCaptured, NM:executorEmitsNoSpans, "
        'F:predicateFailed{predicateReasons:["1 tool error(s)"]}, NR',
        "response",
        "serverData",
        case=OPEN,
        trace_lacks_span_channel=True,
        predicate_results=[
            PredicateResult(False, "1 tool error(s)", predicate=PredicateRef("noToolErrors"))
        ],
    ),
    ex(
        "47",
        "3×NM:noEvidenceCaptured, 2×NM:executorEmitsNoSpans, NM:noEvidenceCaptured",
        case=OPEN,
        trace_lacks_span_channel=True,
        predicate_results=[
            PredicateResult(
                passed=False, status="error", predicate=PredicateRef("toolLatencyUnder")
            )
        ],
    ),
    ex(
        "48",
        f'{S1}, {S1}, P:observed, F:argumentMismatch{{predicateReasons:["bad arg"]}}, '
        "P:observed{[s1]}, NR",
        "call",
        "arguments",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[
            PredicateResult(False, "bad arg", predicate=PredicateRef("argumentsMatchToolSchema"))
        ],
    ),
    ex(
        "49",
        'P:observed, F:predicateFailed{predicateReasons:["Missing description"]}, 4×NR',
        "discovery",
        "setup",
        predicate_results=[CATALOG],
        **EX49,
    ),
    ex(
        "50-advisory",
        "P:observed, P:observed, 4×NM:noEvidenceCaptured",
        predicate_results=[
            replace(CATALOG, predicate=PredicateRef(CATALOG.predicate.kind_, role="advisory"))
        ],  # type: ignore[union-attr]
        **EX49,
    ),
    ex(
        "50-error",
        "P:observed, P:observed, 4×NM:noEvidenceCaptured",
        predicate_results=[replace(CATALOG, status="error")],
        **EX49,
    ),
    *[
        ex(
            f"51-{attribution_}",
            chain,
            ff,
            cat,
            predicate_results=[CATALOG],
            setup_signals=SetupSignals(sig("ok"), sig("failed", attribution_)),
            tool_signals=ToolSignals(tools_total_before=1),
        )
        for attribution_, chain, ff, cat in (
            ("theirs", "P:observed, F:toolsListFailed, 4×NR", "discovery", "setup"),
            ("ours", "P:observed, NM:setupAborted, 4×NM:noEvidenceCaptured", None, None),
            ("unknown", "P:observed, NM:egressUnverified, 4×NM:noEvidenceCaptured", None, None),
        )
    ],
    *[
        ex(
            f"52-{name}",
            f"{EX1_HEAD}, {row}",
            ff,
            cat,
            spans=[SPAN],
            prompts=[TURN],
            judge_evidence=j,
        )
        for name, j, row, ff, cat in (
            ("pass", judge("scored", "pass"), "P:judgeObserved", None, None),
            ("partial", judge("scored", "partial"), "F:judgePartial", "userValue", "userValue"),
            ("fail", judge("scored", "fail"), "F:judgeFailed", "userValue", "userValue"),
            ("no-verdict", judge("scored"), "NM:noEvidenceCaptured", None, None),
        )
    ],
    *[
        ex(f"53-{name}", f"{EX1_HEAD}, {row}", spans=[SPAN], prompts=[TURN], judge_evidence=j)
        for name, j, row in (
            ("error", judge("error"), "NM:evaluatorError"),
            ("pending", judge("pending"), "NM:judgePending"),
            ("not_requested", judge("pending", kind="not_requested"), "NM:judgeNotRequested"),
            ("skipped", judge("skipped"), "NM:noEvidenceCaptured"),
        )
    ],
    ex(
        "54-failing-row",
        f'{EX1_HEAD}, F:predicateFailed{{predicateReasons:["not ok"]}}',
        "userValue",
        "userValue",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[PredicateResult(False, "not ok")],
        judge_evidence=judge("scored", "pass"),
    ),
    ex(
        "54-passing-row",
        f"{EX1_HEAD}, P:observed",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[OK],
        judge_evidence=judge("scored", "fail"),
    ),
    ex(
        "54-evaluator",
        f"{EX1_HEAD}, NM:evaluatorError",
        None,
        "evaluator",
        spans=[SPAN],
        prompts=[TURN],
        evaluator_errored=True,
        judge_evidence=judge("scored", "pass"),
    ),
    ex(
        "54-trace-absent",
        f"{EX1_HEAD}, NM:traceAbsent",
        spans=[SPAN],
        prompts=[TURN],
        trace_absent=True,
        judge_evidence=judge("scored", "pass"),
    ),
    ex(
        "55",
        f"{S1}, {S1}, P:observed, F:protocolError{{[s1]}}, NR, NR",
        "call",
        "serverData",
        spans=[ERR_SPAN],
        prompts=[TURN],
        judge_evidence=judge("scored", "pass"),
    ),
    ex(
        "56",
        EX56_CHAIN.replace(
            "SELECTION",
            f'F:missingToolCall{{promptIndexes:[0], predicateReasons:["{ATTRIBUTION_REASON}"]}}',
        ),
        "selection",
        "metadata",
        metadata_attribution=attribution(),
        **EX56,
    ),
    *[
        ex(
            f"57-{name}",
            EX56_CHAIN.replace("SELECTION", EX56_SELECTION),
            "selection",
            "selection",
            metadata_attribution=a,
            **EX56,
        )
        for name, a in (
            ("not-attributed", attribution(attributed=False)),
            ("no-reasons", attribution(reasons=None)),
            ("blank-reasons", attribution(reasons=("  ", "\u3000\ufeff"))),
            ("pending", attribution(status="pending")),
            ("error", attribution(status="error")),
            ("skipped", attribution(status="skipped")),
            ("not_applicable", attribution(status="not_applicable")),
        )
    ],
    ex(
        "58-predicate",
        f"{EX1_HEAD}, F:predicateFailed{{predicateReasons:[{LONG_KEPT}]}}",
        "userValue",
        "userValue",
        spans=[SPAN],
        prompts=[TURN],
        predicate_results=[PredicateResult(False, reason) for reason in LONG],
    ),
    ex(
        "58-judge",
        f"{EX1_HEAD}, F:judgeFailed{{predicateReasons:[{LONG_KEPT}]}}",
        "userValue",
        "userValue",
        spans=[SPAN],
        prompts=[TURN],
        judge_evidence=JudgeEvidence("scored", verdict="fail", reasons=LONG),
    ),
    ex(
        "58-attribution",
        EX56_CHAIN.replace(
            "SELECTION", f"F:missingToolCall{{promptIndexes:[0], predicateReasons:[{LONG_KEPT}]}}"
        ),
        "selection",
        "metadata",
        metadata_attribution=attribution(reasons=LONG),
        **EX56,
    ),
]


def expected_wire(example: Example, analyzer: int = 12) -> dict[str, Any]:
    wire: dict[str, Any] = {"stageResults": parse_chain(example.chain)}
    if example.ff is not None:
        wire["firstFailedStage"] = example.ff
    if example.cat is not None:
        wire["failureCategory"] = example.cat
    wire["stageAnalyzerVersion"] = analyzer
    return wire


def test_every_example_number_is_covered() -> None:
    numbers = {example.id.split("-")[0] for example in EXAMPLES}
    assert numbers == {str(n) for n in range(1, 59)}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_worked_example(example: Example) -> None:
    derivation = derive_chain(example.input())
    assert derivation.to_wire() == expected_wire(example), render_chain(derivation)


def test_example_58_caps_are_utf16() -> None:
    """Each kept reason is exactly 500 UTF-16 units, the last being U+2026 (§2.1)."""
    example = next(e for e in EXAMPLES if e.id == "58-predicate")
    row = derive_chain(example.input()).stage_results[-1]
    assert row.evidence is not None and row.evidence.predicate_reasons is not None
    kept = row.evidence.predicate_reasons
    assert len(kept) == 5
    for reason in kept:
        assert len(reason.encode("utf-16-le", "surrogatepass")) == 2 * 500
        assert reason.endswith("…")
