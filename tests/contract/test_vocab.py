"""Pins every contract vocabulary member and label against the spec tables, literally.

Expected values are copied from CONTRACT.md §1 / §7 and the seed glossary (001), never
computed from the module under test, so any drift in wire values, order or wording fails.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, get_args

import pytest

from valuechain.contract import labels, versions, vocab
from valuechain.contract.labels import (
    CATEGORY_LABELS,
    EXCLUSION_CLASS_LABELS,
    REASON_GROUPS,
    REASON_LABELS,
    STAGE_GOOD_LOOKS_LIKE,
    STAGE_LABELS,
    STAGE_QUESTIONS,
    STATE_LABELS,
    UNDECIDED_REASON_LABELS,
    VERDICT_DECISION_REASON_LABELS,
    VERDICT_LABELS,
)
from valuechain.contract.tallies import SetupLatency, StageLatency
from valuechain.contract.vocab import (
    AuthoredMode,
    CheckRole,
    CheckSeverity,
    ErrorPolicy,
    ExcludedTrialDetail,
    FailureCategory,
    IterationStatus,
    JudgePendingKind,
    JudgeStatus,
    JudgeVerdict,
    MaterializationState,
    MeasurementUnit,
    ParityBlocker,
    RateState,
    Reach,
    RenderStatus,
    ScoreStatus,
    SetupAttribution,
    SetupOutcome,
    SetupPhase,
    SliceDimension,
    Stage,
    StageExclusionClass,
    StageReason,
    StageState,
    StepErrorSource,
    ToolErrorKind,
    ToolExpectation,
    TrialExclusionReason,
    UndecidedReason,
    Verdict,
    VerdictDecisionReason,
    VerdictSource,
)
from valuechain.contract.vocab_rules import (
    EVAL_RUN_VERDICTS,
    EXCLUDED_TRIAL_DETAIL_CLASSES,
    FALLBACK_NEXT_ACTION,
    NEXT_ACTIONS,
    REASON_STATES,
    RUN_TERMINAL_STATUSES,
    STAGES,
    STALE_ANALYZER_NEXT_ACTION,
    TASK_DECISION_REASONS,
    TERMINAL_STATUSES,
    VALIDITY_DECISION_REASONS,
    VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION,
    stage_index,
)

# --- Enums: wire values in normative order (CONTRACT §1) -------------------------------

EXPECTED_ENUMS: list[tuple[type[StrEnum], list[str]]] = [
    # §1.1
    (Stage, ["connection", "discovery", "selection", "call", "response", "userValue"]),
    # §1.2
    (StageState, ["passed", "failed", "notReached", "notMeasured", "notApplicable"]),
    # §1.3
    (
        StageReason,
        [
            "noSpanChannel",
            "noEvidenceCaptured",
            "matchVerdictUnavailable",
            "traceAbsent",
            "executorEmitsNoSpans",
            "blockedByPolicy",
            "evaluatorError",
            "providerError",
            "setupAborted",
            "connectFailed",
            "toolsListFailed",
            "egressUnverified",
            "lifecycleStopped",
            "notAuthored",
            "earlierStageFailed",
            "missingToolCall",
            "unexpectedToolCall",
            "argumentMismatch",
            "toolError",
            "protocolError",
            "renderFailed",
            "predicateFailed",
            "observed",
            "impliedByLaterEvidence",
            "judgeObserved",
            "judgePartial",
            "judgeFailed",
            "judgePending",
            "judgeNotRequested",
        ],
    ),
    # §1.4
    (
        FailureCategory,
        ["setup", "metadata", "selection", "arguments", "serverData", "userValue", "evaluator"],
    ),
    # §1.5
    (
        IterationStatus,
        [
            "pending",
            "running",
            "completed",
            "failed",
            "cancelled",
            "timed_out",
            "setup_failed",
            "skipped",
        ],
    ),
    # §1.6
    (Verdict, ["passed", "failed", "inconclusive", "notEstablished"]),
    (
        UndecidedReason,
        [
            "runNotTerminal",
            "runStatusNotAVerdict",
            "runResultNotAVerdict",
            "verdictSummaryUnavailable",
        ],
    ),
    (VerdictSource, ["policyV2", "legacy", "none"]),
    (MeasurementUnit, ["caseVariant", "trial"]),
    # §1.7
    (
        VerdictDecisionReason,
        [
            "configuredTrialsNotAttempted",
            "noGradeableTrials",
            "eligibleTrialsBelowMinimum",
            "completionRateBelowMinimum",
            "completionRateNotMeasured",
            "evaluatorErrorRateAboveMaximum",
            "evaluatorErrorRateNotMeasured",
            "caseHasNoEligibleTrials",
            "casePassRateMetThreshold",
            "casePassRateBelowThreshold",
            "allMeasuredCasesMetThreshold",
        ],
    ),
    # §1.8
    (
        StageExclusionClass,
        ["lifecycle", "integrity", "version", "notApplicable", "reachUnknown", "notMeasured"],
    ),
    (
        TrialExclusionReason,
        [
            "notTerminal",
            "skipped",
            "setupFailed",
            "cancelled",
            "timedOut",
            "executionFailed",
            "evaluatorError",
        ],
    ),
    (
        ExcludedTrialDetail,
        [
            "notTerminal",
            "skipped",
            "cancelled",
            "setupFailed",
            "timedOut",
            "executionFailed",
            "evaluatorError",
            "chainMissing",
            "chainUnverified",
            "chainVersionAhead",
            "measurementsMissing",
            "measurementsInvalid",
            "measurementsVersionAhead",
            "analyzerMismatch",
        ],
    ),
    # §1.9
    (MaterializationState, ["provisional", "final"]),
    (Reach, ["reached", "notReached", "unknown", "notApplicable"]),
    (RateState, ["measured", "notMeasured"]),
    (SetupPhase, ["connection", "discovery"]),
    (SliceDimension, ["overall", "intent", "model", "host"]),
    (
        ParityBlocker,
        [
            "missingRunGroup",
            "differentRunGroup",
            "missingConfigIdentity",
            "differentConfigIdentity",
            "missingCaseSetIdentity",
            "differentCaseSetIdentity",
            "differentAnalyzerVersion",
            "differentMeasurementsVersion",
            "differentMeasurementUnit",
            "mixedSourceVersions",
            "provisional",
        ],
    ),
    (SetupOutcome, ["ok", "failed"]),
    (SetupAttribution, ["ours", "theirs", "unknown"]),
    (StepErrorSource, ["model", "setup"]),
    (JudgeStatus, ["scored", "error", "skipped", "not_applicable", "pending"]),
    (JudgeVerdict, ["pass", "partial", "fail"]),
    (JudgePendingKind, ["scheduled", "not_requested"]),
    (AuthoredMode, ["model_driven", "model_free"]),
    (ToolExpectation, ["required", "not_required", "open"]),
    (ToolErrorKind, ["content-error", "protocol-error"]),
    (
        RenderStatus,
        [
            "rendered",
            "no_ui_resource",
            "resource_read_failed",
            "mount_failed",
            "bridge_timeout",
            "render_error",
            "blank_screenshot",
            "screenshot_failed",
            "browser_unavailable",
        ],
    ),
    (CheckRole, ["gating", "advisory"]),
    (CheckSeverity, ["warn"]),
    (ScoreStatus, ["scored", "error", "skipped", "not_applicable"]),
    (ErrorPolicy, ["fail", "ignore"]),
]

EXPECTED_COUNTS: list[tuple[type[StrEnum], int]] = [
    (Stage, 6),
    (StageState, 5),
    (StageReason, 29),
    (FailureCategory, 7),
    (IterationStatus, 8),
    (Verdict, 4),
    (UndecidedReason, 4),
    (VerdictSource, 3),
    (MeasurementUnit, 2),
    (VerdictDecisionReason, 11),
    (StageExclusionClass, 6),
    (TrialExclusionReason, 7),
    (ExcludedTrialDetail, 14),
    (MaterializationState, 2),
    (Reach, 4),
    (RateState, 2),
    (SetupPhase, 2),
    (SliceDimension, 4),
    (ParityBlocker, 11),
    (SetupOutcome, 2),
    (SetupAttribution, 3),
    (StepErrorSource, 2),
    (JudgeStatus, 5),
    (JudgeVerdict, 3),
    (JudgePendingKind, 2),
    (AuthoredMode, 2),
    (ToolExpectation, 3),
    (ToolErrorKind, 2),
    (RenderStatus, 9),
    (CheckRole, 2),
    (CheckSeverity, 1),
    (ScoreStatus, 4),
    (ErrorPolicy, 2),
]


def _ids(case: tuple[type[StrEnum], object]) -> str:
    return case[0].__name__


@pytest.mark.parametrize("case", EXPECTED_ENUMS, ids=_ids)
def test_enum_wire_values_in_normative_order(case: tuple[type[StrEnum], list[str]]) -> None:
    enum, expected = case
    assert [m.value for m in enum] == expected


@pytest.mark.parametrize("case", EXPECTED_COUNTS, ids=_ids)
def test_enum_member_count(case: tuple[type[StrEnum], int]) -> None:
    enum, count = case
    assert len(enum) == count


def test_every_contract_enum_is_pinned() -> None:
    pinned = {e.__name__ for e, _ in EXPECTED_ENUMS}
    counted = {e.__name__ for e, _ in EXPECTED_COUNTS}
    defined = {
        name
        for name, obj in vars(vocab).items()
        if isinstance(obj, type) and issubclass(obj, StrEnum) and obj is not StrEnum
    }
    assert pinned == counted == defined
    assert len(defined) == 33


@pytest.mark.parametrize("case", EXPECTED_ENUMS, ids=_ids)
def test_member_names_are_upper_snake_of_the_wire_value(
    case: tuple[type[StrEnum], list[str]],
) -> None:
    enum, _ = case
    for member in enum:
        words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", member.value)
        assert member.name == words.replace("-", "_").upper()


def test_member_name_examples() -> None:
    assert Stage["USER_VALUE"].value == "userValue"
    assert StageState["NOT_REACHED"].value == "notReached"
    assert IterationStatus["TIMED_OUT"].value == "timed_out"
    assert ToolErrorKind["CONTENT_ERROR"].value == "content-error"
    assert UndecidedReason["RUN_STATUS_NOT_A_VERDICT"].value == "runStatusNotAVerdict"
    assert VerdictSource["POLICY_V2"].value == "policyV2"


def test_members_serialise_as_bare_wire_strings() -> None:
    assert json.dumps([Stage.USER_VALUE, ToolErrorKind.PROTOCOL_ERROR]) == (
        '["userValue", "protocol-error"]'
    )
    assert f"{StageReason.EARLIER_STAGE_FAILED}" == "earlierStageFailed"
    assert StageReason("judgePartial") is StageReason.JUDGE_PARTIAL


def test_unknown_wire_value_is_refused() -> None:
    with pytest.raises(ValueError):
        StageReason("notAReason")


# --- Structural constants ----------------------------------------------------------------


def test_stages_tuple_and_index() -> None:
    assert [s.value for s in STAGES] == [
        "connection",
        "discovery",
        "selection",
        "call",
        "response",
        "userValue",
    ]
    assert [stage_index(Stage(w)) for w in ["userValue", "connection", "call"]] == [5, 0, 3]
    assert [stage_index(s) for s in STAGES] == [0, 1, 2, 3, 4, 5]


def test_reason_states_pairings() -> None:
    # CONTRACT §1.3 "State(s) it is emitted with"
    expected = {
        "noSpanChannel": "notMeasured",
        "noEvidenceCaptured": "notMeasured",
        "matchVerdictUnavailable": "notMeasured",
        "traceAbsent": "notMeasured",
        "executorEmitsNoSpans": "notMeasured",
        "blockedByPolicy": "notMeasured",
        "evaluatorError": "notMeasured",
        "providerError": "notMeasured",
        "setupAborted": "notMeasured",
        "connectFailed": "failed",
        "toolsListFailed": "failed",
        "egressUnverified": "notMeasured",
        "lifecycleStopped": "notMeasured",
        "notAuthored": "notApplicable",
        "earlierStageFailed": "notReached",
        "missingToolCall": "failed",
        "unexpectedToolCall": "failed",
        "argumentMismatch": "failed",
        "toolError": "failed",
        "protocolError": "failed",
        "renderFailed": "failed",
        "predicateFailed": "failed",
        "observed": "passed",
        "impliedByLaterEvidence": "passed",
        "judgeObserved": "passed",
        "judgePartial": "failed",
        "judgeFailed": "failed",
        "judgePending": "notMeasured",
        "judgeNotRequested": "notMeasured",
    }
    assert [(k.value, v.value) for k, v in REASON_STATES.items()] == list(expected.items())


def test_terminal_statuses() -> None:
    # §5.4 step 2 / §6.2 / Q14: only pending and running are not terminal.
    assert {s.value for s in TERMINAL_STATUSES} == {
        "completed",
        "failed",
        "cancelled",
        "timed_out",
        "setup_failed",
        "skipped",
    }
    # §6.6 step 1: the run-level set is narrower.
    assert {s.value for s in RUN_TERMINAL_STATUSES} == {
        "completed",
        "failed",
        "cancelled",
        "timed_out",
    }


def test_verdict_partitions() -> None:
    assert [v.value for v in EVAL_RUN_VERDICTS] == ["passed", "failed", "inconclusive"]
    assert [r.value for r in VALIDITY_DECISION_REASONS] == [
        "configuredTrialsNotAttempted",
        "noGradeableTrials",
        "eligibleTrialsBelowMinimum",
        "completionRateBelowMinimum",
        "completionRateNotMeasured",
        "evaluatorErrorRateAboveMaximum",
        "evaluatorErrorRateNotMeasured",
        "caseHasNoEligibleTrials",
    ]
    assert [r.value for r in TASK_DECISION_REASONS] == [
        "casePassRateMetThreshold",
        "casePassRateBelowThreshold",
        "allMeasuredCasesMetThreshold",
    ]


def test_excluded_trial_detail_classes() -> None:
    # §5.4 / §7.4: *VersionAhead is class `version`, the rest of chain/measurements `integrity`.
    expected = {
        "notTerminal": "lifecycle",
        "skipped": "lifecycle",
        "cancelled": "lifecycle",
        "setupFailed": "lifecycle",
        "timedOut": "lifecycle",
        "executionFailed": "lifecycle",
        "evaluatorError": "lifecycle",
        "chainMissing": "integrity",
        "chainUnverified": "integrity",
        "chainVersionAhead": "version",
        "measurementsMissing": "integrity",
        "measurementsInvalid": "integrity",
        "measurementsVersionAhead": "version",
        "analyzerMismatch": "integrity",
    }
    assert [(k.value, v.value) for k, v in EXCLUDED_TRIAL_DETAIL_CLASSES.items()] == list(
        expected.items()
    )


# --- Next actions (CONTRACT §1.4, exact wire strings) -----------------------------------

EXPECTED_NEXT_ACTIONS = {
    "setup": "check the server connection and environment configuration",
    "metadata": "review the tool metadata and descriptions in the server catalog",
    "selection": "review tool selection and the tool catalog",
    "arguments": "review the authored arguments against the tool input schema",
    "serverData": "inspect the tool response returned by the server",
    "userValue": "review whether the response answered the user's goal",
    "evaluator": "check the evaluator configuration; the case was not graded",
}


def test_next_actions() -> None:
    assert [(k.value, v) for k, v in NEXT_ACTIONS.items()] == list(EXPECTED_NEXT_ACTIONS.items())


def test_extra_next_action_strings() -> None:
    assert FALLBACK_NEXT_ACTION == "inspect the case trace; no failure category was recorded"
    assert VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION == (
        "the recorded verdict disagrees with the measured chain; inspect the case trace"
    )
    assert STALE_ANALYZER_NEXT_ACTION == (
        "the recorded verdict disagrees with the measured chain; this run's chain was derived"
        " by an older analyzer that measures less than the current one \u2014 re-run the case"
        " before investigating further"
    )
    assert STALE_ANALYZER_NEXT_ACTION.count("\u2014") == 1
    assert STALE_ANALYZER_NEXT_ACTION.encode("utf-8").count(b"\xe2\x80\x94") == 1


def test_latency_wire_constants_and_the_document_models_agree() -> None:
    assert (
        vocab.LATENCY_UNIT,
        vocab.LATENCY_BASIS_EVIDENCE_SPAN_UNION,
        vocab.LATENCY_BASIS_SETUP_PHASE_WALL,
    ) == ("ms", "evidence_span_union", "setup_phase_wall")
    # The pydantic models spell them as Literals, which cannot name a constant.
    for model, basis in (
        (StageLatency, vocab.LATENCY_BASIS_EVIDENCE_SPAN_UNION),
        (SetupLatency, vocab.LATENCY_BASIS_SETUP_PHASE_WALL),
    ):
        assert get_args(model.model_fields["unit"].annotation) == (vocab.LATENCY_UNIT,)
        assert get_args(model.model_fields["basis"].annotation) == (basis,)


def test_js_constants() -> None:
    """ECMAScript WhiteSpace + LineTerminator (CONTRACT Q8) and `Number.MAX_SAFE_INTEGER`."""
    spaces = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B)]
    spaces += [0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF]
    assert [ord(c) for c in vocab.JS_WHITESPACE] == spaces
    assert vocab.JS_MAX_SAFE_INTEGER == 9_007_199_254_740_991


# --- Labels (seed glossary 001; §1.3 group column) --------------------------------------

EXPECTED_STAGE_LABELS = {
    "connection": "Connection",
    "discovery": "Discovery",
    "selection": "Selection",
    "call": "Tool call",
    "response": "Response",
    "userValue": "User value",
}

EXPECTED_STAGE_QUESTIONS = {
    "connection": "Could the client reach the server and initialize a session?",
    "discovery": "Did the client receive usable primitives and metadata?",
    "selection": "Did the model choose the right tool for the request?",
    "call": "Was the call made with usable arguments?",
    "response": "Did the server return data the model could use?",
    "userValue": "Was the user's actual request satisfied?",
}

EXPECTED_STAGE_GOOD_LOOKS_LIKE = {
    "connection": "Session connected",
    "discovery": "Tools and resources discovered",
    "selection": "Right tool selected",
    "call": "Valid call made",
    "response": "Usable response returned",
    "userValue": "Request satisfied",
}

EXPECTED_STATE_LABELS = {
    "passed": "passed",
    "failed": "failed",
    "notReached": "never ran (an earlier stage failed)",
    "notMeasured": "not measured",
    "notApplicable": "not applicable to this case",
}

EXPECTED_REASON_LABELS = {
    "noSpanChannel": "this run captures no evidence channel for that stage",
    "noEvidenceCaptured": "nothing eligible for that stage was captured",
    "matchVerdictUnavailable": (
        "extra tool calls were captured but the run did not report whether its match options "
        "tolerate them"
    ),
    "traceAbsent": "the iteration recorded no trace",
    "executorEmitsNoSpans": "the executor emitted no spans",
    "blockedByPolicy": "a policy blocked the run before it could be measured",
    "evaluatorError": "the evaluator itself failed, so the run says nothing about the server",
    "providerError": "the model provider failed the call, so this stage was never measured",
    "setupAborted": "the environment was never prepared, so the test never began",
    "connectFailed": "the configured server was reached and initialize failed there",
    "toolsListFailed": "initialize succeeded and listing tools failed",
    "egressUnverified": "the connection failed with no evidence that our own network egress works",
    "lifecycleStopped": "the run was stopped mid-flight",
    "notAuthored": "the case asserts nothing this stage could decide",
    "earlierStageFailed": "an earlier stage failed",
    "missingToolCall": "an expected tool call was never made",
    "unexpectedToolCall": "a tool call was made that the case did not expect",
    "argumentMismatch": "the call arguments did not match what the case expects",
    "toolError": "the server reported a tool error",
    "protocolError": "the call never produced a result",
    "renderFailed": "the widget did not render",
    "predicateFailed": "a check on the result did not hold",
    "observed": "the evidence was inspected and the stage held",
    "impliedByLaterEvidence": "a later stage's success implies it",
    "judgeObserved": "the LLM judge scored at or above the threshold",
    "judgePartial": (
        "the LLM judge scored inside the partial band — at or above the floor, below the threshold"
    ),
    "judgeFailed": "the LLM judge scored below the partial floor",
    "judgePending": "an LLM judge verdict is owed and has not arrived",
    "judgeNotRequested": "no LLM judge verdict was ever owed",
}

EXPECTED_CATEGORY_LABELS = {
    "setup": "setup",
    "metadata": "tool metadata",
    "selection": "tool selection",
    "arguments": "call arguments",
    "serverData": "server data",
    "userValue": "user value",
    "evaluator": "evaluator",
}


EXPECTED_VERDICT_LABELS = {
    "passed": "passed",
    "failed": "failed",
    "inconclusive": "inconclusive",
    "notEstablished": "no verdict established",
}

EXPECTED_UNDECIDED_REASON_LABELS = {
    "runNotTerminal": "the run has not finished yet",
    "runStatusNotAVerdict": (
        "the run stopped before it finished, so its recorded counts describe a sample rather than "
        "the run"
    ),
    "runResultNotAVerdict": "the run finished without recording a verdict",
    "verdictSummaryUnavailable": (
        "the run was decided under verdict policy v2 and its decision could not be read"
    ),
}

EXPECTED_VERDICT_DECISION_REASON_LABELS = {
    "configuredTrialsNotAttempted": (
        "some configured trial never ran, so the run does not cover what it was asked to"
    ),
    "noGradeableTrials": "nothing in the run produced a gradeable verdict",
    "eligibleTrialsBelowMinimum": "fewer gradeable trials than the suite's validity floor requires",
    "completionRateBelowMinimum": (
        "too few attempted trials completed to meet the suite's completion floor"
    ),
    "completionRateNotMeasured": (
        "nothing was attempted, so the completion floor cannot be satisfied"
    ),
    "evaluatorErrorRateAboveMaximum": (
        "the evaluator failed too often for this run to describe the server"
    ),
    "evaluatorErrorRateNotMeasured": (
        "nothing was attempted, so the evaluator-error ceiling cannot be satisfied"
    ),
    "caseHasNoEligibleTrials": "a case graded nothing at all",
    "casePassRateMetThreshold": "the case met its pass threshold",
    "casePassRateBelowThreshold": "a case did not meet its pass threshold",
    "allMeasuredCasesMetThreshold": "every measured case met its threshold",
}

EXPECTED_EXCLUSION_CLASS_LABELS = {
    "lifecycle": (
        "The trial never produced a comparable observation: not terminal, skipped, cancelled, "
        "timed out, setup-failed, execution-failed, or the evaluator errored."
    ),
    "integrity": (
        "A chain or a measurement was missing, unverified, or rejected at the write boundary. This "
        "is a bug report, not a data property — a run with a non-zero integrity count is telling "
        "you something upstream is producing derivations that do not validate."
    ),
    "version": (
        "Produced by an analyzer or schema version this reader does not understand. Never coerced: "
        "a version-ahead payload may mean something different by the same word."
    ),
    "notApplicable": "The stage does not apply to this case at all.",
    "reachUnknown": (
        "Nothing was captured, so reach could not be decided. Excluded from the reach denominator "
        "rather than counted as a drop-off — a trial we captured nothing for is not evidence that "
        "value stopped there."
    ),
    "notMeasured": "The stage was reached and nothing decided it.",
}

EXPECTED_REASON_GROUPS = {
    "noSpanChannel": "nothing measurable",
    "noEvidenceCaptured": "nothing measurable",
    "matchVerdictUnavailable": "nothing measurable",
    "traceAbsent": "nothing measurable",
    "executorEmitsNoSpans": "nothing measurable",
    "blockedByPolicy": "nothing measurable",
    "evaluatorError": "nothing measurable",
    "providerError": "nothing measurable",
    "setupAborted": "nothing measurable",
    "connectFailed": "nothing measurable",
    "toolsListFailed": "nothing measurable",
    "egressUnverified": "nothing measurable",
    "lifecycleStopped": "nothing measurable",
    "notAuthored": "stage does not apply",
    "earlierStageFailed": "position",
    "missingToolCall": "measured failure",
    "unexpectedToolCall": "measured failure",
    "argumentMismatch": "measured failure",
    "toolError": "measured failure",
    "protocolError": "measured failure",
    "renderFailed": "measured failure",
    "predicateFailed": "measured failure",
    "observed": "measured pass",
    "impliedByLaterEvidence": "measured pass",
    "judgeObserved": "advisory LLM judge",
    "judgePartial": "advisory LLM judge",
    "judgeFailed": "advisory LLM judge",
    "judgePending": "advisory LLM judge",
    "judgeNotRequested": "advisory LLM judge",
}

LabelCase = tuple[str, Mapping[Any, str], type[StrEnum], dict[str, str]]

LABEL_MAPS: list[LabelCase] = [
    ("STAGE_LABELS", STAGE_LABELS, Stage, EXPECTED_STAGE_LABELS),
    ("STAGE_QUESTIONS", STAGE_QUESTIONS, Stage, EXPECTED_STAGE_QUESTIONS),
    ("STAGE_GOOD_LOOKS_LIKE", STAGE_GOOD_LOOKS_LIKE, Stage, EXPECTED_STAGE_GOOD_LOOKS_LIKE),
    ("STATE_LABELS", STATE_LABELS, StageState, EXPECTED_STATE_LABELS),
    ("REASON_LABELS", REASON_LABELS, StageReason, EXPECTED_REASON_LABELS),
    ("REASON_GROUPS", REASON_GROUPS, StageReason, EXPECTED_REASON_GROUPS),
    ("CATEGORY_LABELS", CATEGORY_LABELS, FailureCategory, EXPECTED_CATEGORY_LABELS),
    ("NEXT_ACTIONS", NEXT_ACTIONS, FailureCategory, EXPECTED_NEXT_ACTIONS),
    ("VERDICT_LABELS", VERDICT_LABELS, Verdict, EXPECTED_VERDICT_LABELS),
    (
        "UNDECIDED_REASON_LABELS",
        UNDECIDED_REASON_LABELS,
        UndecidedReason,
        EXPECTED_UNDECIDED_REASON_LABELS,
    ),
    (
        "VERDICT_DECISION_REASON_LABELS",
        VERDICT_DECISION_REASON_LABELS,
        VerdictDecisionReason,
        EXPECTED_VERDICT_DECISION_REASON_LABELS,
    ),
    (
        "EXCLUSION_CLASS_LABELS",
        EXCLUSION_CLASS_LABELS,
        StageExclusionClass,
        EXPECTED_EXCLUSION_CLASS_LABELS,
    ),
]


def _label_id(case: tuple[str, object, object, object]) -> str:
    return case[0]


@pytest.mark.parametrize("case", LABEL_MAPS, ids=_label_id)
def test_label_map_entries_verbatim_and_in_enum_order(
    case: LabelCase,
) -> None:
    _, mapping, _, expected = case
    assert [(k.value, v) for k, v in mapping.items()] == list(expected.items())


@pytest.mark.parametrize("case", LABEL_MAPS, ids=_label_id)
def test_label_map_is_total_over_its_enum(
    case: LabelCase,
) -> None:
    _, mapping, enum, _ = case
    assert list(mapping) == list(enum)
    assert all(type(k) is enum for k in mapping)
    assert all(isinstance(v, str) and v for v in mapping.values())


@pytest.mark.parametrize(
    "mapping",
    [
        STAGE_LABELS,
        REASON_LABELS,
        NEXT_ACTIONS,
        REASON_STATES,
        EXCLUDED_TRIAL_DETAIL_CLASSES,
        EXCLUSION_CLASS_LABELS,
    ],
)
def test_maps_are_immutable(mapping: Mapping[Any, object]) -> None:
    with pytest.raises(TypeError):
        mapping[next(iter(mapping))] = "x"  # type: ignore[index]


def test_reason_label_follows_glossary_over_older_code_copy() -> None:
    # CONTRACT Q16: the seed wording wins over "...never reached the server".
    assert REASON_LABELS[StageReason.PROVIDER_ERROR] == (
        "the model provider failed the call, so this stage was never measured"
    )


# --- Versions (CONTRACT §7.1, §7.2) -----------------------------------------------------


def test_version_constants() -> None:
    assert versions.STAGE_ANALYZER_VERSION == 12
    assert versions.STAGE_ANALYZER_VERSION_EVIDENCE_TRIGGERED_RESPONSE == 7
    assert versions.STAGE_MEASUREMENTS_SCHEMA_VERSION == 1
    assert versions.EVAL_STAGE_ANALYTICS_SCHEMA_VERSION == 1
    assert versions.EVAL_VERDICT_POLICY_VERSION == 2
    assert versions.EVAL_RUN_DECISION_SUMMARY_SCHEMA_VERSION == 1
    assert versions.GOAL_JUDGE_TEMPLATE_VERSION == 4
    assert versions.SELECTABLE_ANALYZER_VERSIONS == (11, 12)


# --- Layering: contract/ is the bottom layer --------------------------------------------


def _valuechain_imports(module: object) -> set[str]:
    source = Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.level or 0) > 0:
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("valuechain"):
            found.add(node.module or "")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("valuechain"))
    return found


def test_vocab_and_versions_import_nothing_of_valuechain() -> None:
    assert _valuechain_imports(vocab) == set()
    assert _valuechain_imports(versions) == set()


def test_labels_import_only_vocab() -> None:
    assert _valuechain_imports(labels) == {"valuechain.contract.vocab"}
