"""Display words for the contract vocabularies (CONTRACT §1, seed glossary 001).

Presentation only: a label MUST NOT feed any computation (CONTRACT §1.3). Where the contract
and the glossary word a label differently, the glossary wins (CONTRACT Q16); `REASON_GROUPS`
is the contract's own §1.3 group column. Every map is total over its enum.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from valuechain.contract.vocab import (
    FailureCategory,
    Stage,
    StageExclusionClass,
    StageReason,
    StageState,
    UndecidedReason,
    Verdict,
    VerdictDecisionReason,
)

STAGE_LABELS: Mapping[Stage, str] = MappingProxyType(
    {
        Stage.CONNECTION: "Connection",
        Stage.DISCOVERY: "Discovery",
        Stage.SELECTION: "Selection",
        Stage.CALL: "Tool call",
        Stage.RESPONSE: "Response",
        Stage.USER_VALUE: "User value",
    }
)

STAGE_QUESTIONS: Mapping[Stage, str] = MappingProxyType(
    {
        Stage.CONNECTION: "Could the client reach the server and initialize a session?",
        Stage.DISCOVERY: "Did the client receive usable primitives and metadata?",
        Stage.SELECTION: "Did the model choose the right tool for the request?",
        Stage.CALL: "Was the call made with usable arguments?",
        Stage.RESPONSE: "Did the server return data the model could use?",
        Stage.USER_VALUE: "Was the user's actual request satisfied?",
    }
)

STAGE_GOOD_LOOKS_LIKE: Mapping[Stage, str] = MappingProxyType(
    {
        Stage.CONNECTION: "Session connected",
        Stage.DISCOVERY: "Tools and resources discovered",
        Stage.SELECTION: "Right tool selected",
        Stage.CALL: "Valid call made",
        Stage.RESPONSE: "Usable response returned",
        Stage.USER_VALUE: "Request satisfied",
    }
)

STATE_LABELS: Mapping[StageState, str] = MappingProxyType(
    {
        StageState.PASSED: "passed",
        StageState.FAILED: "failed",
        StageState.NOT_REACHED: "never ran (an earlier stage failed)",
        StageState.NOT_MEASURED: "not measured",
        StageState.NOT_APPLICABLE: "not applicable to this case",
    }
)

REASON_LABELS: Mapping[StageReason, str] = MappingProxyType(
    {
        StageReason.NO_SPAN_CHANNEL: "this run captures no evidence channel for that stage",
        StageReason.NO_EVIDENCE_CAPTURED: "nothing eligible for that stage was captured",
        StageReason.MATCH_VERDICT_UNAVAILABLE: (
            "extra tool calls were captured but the run did not report whether its match options "
            "tolerate them"
        ),
        StageReason.TRACE_ABSENT: "the iteration recorded no trace",
        StageReason.EXECUTOR_EMITS_NO_SPANS: "the executor emitted no spans",
        StageReason.BLOCKED_BY_POLICY: "a policy blocked the run before it could be measured",
        StageReason.EVALUATOR_ERROR: (
            "the evaluator itself failed, so the run says nothing about the server"
        ),
        StageReason.PROVIDER_ERROR: (
            "the model provider failed the call, so this stage was never measured"
        ),
        StageReason.SETUP_ABORTED: "the environment was never prepared, so the test never began",
        StageReason.CONNECT_FAILED: "the configured server was reached and initialize failed there",
        StageReason.TOOLS_LIST_FAILED: "initialize succeeded and listing tools failed",
        StageReason.EGRESS_UNVERIFIED: (
            "the connection failed with no evidence that our own network egress works"
        ),
        StageReason.LIFECYCLE_STOPPED: "the run was stopped mid-flight",
        StageReason.NOT_AUTHORED: "the case asserts nothing this stage could decide",
        StageReason.EARLIER_STAGE_FAILED: "an earlier stage failed",
        StageReason.MISSING_TOOL_CALL: "an expected tool call was never made",
        StageReason.UNEXPECTED_TOOL_CALL: "a tool call was made that the case did not expect",
        StageReason.ARGUMENT_MISMATCH: "the call arguments did not match what the case expects",
        StageReason.TOOL_ERROR: "the server reported a tool error",
        StageReason.PROTOCOL_ERROR: "the call never produced a result",
        StageReason.RENDER_FAILED: "the widget did not render",
        StageReason.PREDICATE_FAILED: "a check on the result did not hold",
        StageReason.OBSERVED: "the evidence was inspected and the stage held",
        StageReason.IMPLIED_BY_LATER_EVIDENCE: "a later stage's success implies it",
        StageReason.JUDGE_OBSERVED: "the LLM judge scored at or above the threshold",
        StageReason.JUDGE_PARTIAL: (
            "the LLM judge scored inside the partial band — at or above the floor, below the "
            "threshold"
        ),
        StageReason.JUDGE_FAILED: "the LLM judge scored below the partial floor",
        StageReason.JUDGE_PENDING: "an LLM judge verdict is owed and has not arrived",
        StageReason.JUDGE_NOT_REQUESTED: "no LLM judge verdict was ever owed",
    }
)

CATEGORY_LABELS: Mapping[FailureCategory, str] = MappingProxyType(
    {
        FailureCategory.SETUP: "setup",
        FailureCategory.METADATA: "tool metadata",
        FailureCategory.SELECTION: "tool selection",
        FailureCategory.ARGUMENTS: "call arguments",
        FailureCategory.SERVER_DATA: "server data",
        FailureCategory.USER_VALUE: "user value",
        FailureCategory.EVALUATOR: "evaluator",
    }
)

VERDICT_LABELS: Mapping[Verdict, str] = MappingProxyType(
    {
        Verdict.PASSED: "passed",
        Verdict.FAILED: "failed",
        Verdict.INCONCLUSIVE: "inconclusive",
        Verdict.NOT_ESTABLISHED: "no verdict established",
    }
)

UNDECIDED_REASON_LABELS: Mapping[UndecidedReason, str] = MappingProxyType(
    {
        UndecidedReason.RUN_NOT_TERMINAL: "the run has not finished yet",
        UndecidedReason.RUN_STATUS_NOT_A_VERDICT: (
            "the run stopped before it finished, so its recorded counts describe a sample rather "
            "than the run"
        ),
        UndecidedReason.RUN_RESULT_NOT_A_VERDICT: "the run finished without recording a verdict",
        UndecidedReason.VERDICT_SUMMARY_UNAVAILABLE: (
            "the run was decided under verdict policy v2 and its decision could not be read"
        ),
    }
)

VERDICT_DECISION_REASON_LABELS: Mapping[VerdictDecisionReason, str] = MappingProxyType(
    {
        VerdictDecisionReason.CONFIGURED_TRIALS_NOT_ATTEMPTED: (
            "some configured trial never ran, so the run does not cover what it was asked to"
        ),
        VerdictDecisionReason.NO_GRADEABLE_TRIALS: (
            "nothing in the run produced a gradeable verdict"
        ),
        VerdictDecisionReason.ELIGIBLE_TRIALS_BELOW_MINIMUM: (
            "fewer gradeable trials than the suite's validity floor requires"
        ),
        VerdictDecisionReason.COMPLETION_RATE_BELOW_MINIMUM: (
            "too few attempted trials completed to meet the suite's completion floor"
        ),
        VerdictDecisionReason.COMPLETION_RATE_NOT_MEASURED: (
            "nothing was attempted, so the completion floor cannot be satisfied"
        ),
        VerdictDecisionReason.EVALUATOR_ERROR_RATE_ABOVE_MAXIMUM: (
            "the evaluator failed too often for this run to describe the server"
        ),
        VerdictDecisionReason.EVALUATOR_ERROR_RATE_NOT_MEASURED: (
            "nothing was attempted, so the evaluator-error ceiling cannot be satisfied"
        ),
        VerdictDecisionReason.CASE_HAS_NO_ELIGIBLE_TRIALS: "a case graded nothing at all",
        VerdictDecisionReason.CASE_PASS_RATE_MET_THRESHOLD: "the case met its pass threshold",
        VerdictDecisionReason.CASE_PASS_RATE_BELOW_THRESHOLD: (
            "a case did not meet its pass threshold"
        ),
        VerdictDecisionReason.ALL_MEASURED_CASES_MET_THRESHOLD: (
            "every measured case met its threshold"
        ),
    }
)

EXCLUSION_CLASS_LABELS: Mapping[StageExclusionClass, str] = MappingProxyType(
    {
        StageExclusionClass.LIFECYCLE: (
            "The trial never produced a comparable observation: not terminal, skipped, cancelled, "
            "timed out, setup-failed, execution-failed, or the evaluator errored."
        ),
        StageExclusionClass.INTEGRITY: (
            "A chain or a measurement was missing, unverified, or rejected at the write boundary. "
            "This is a bug report, not a data property — a run with a non-zero integrity count is "
            "telling you something upstream is producing derivations that do not validate."
        ),
        StageExclusionClass.VERSION: (
            "Produced by an analyzer or schema version this reader does not understand. Never "
            "coerced: a version-ahead payload may mean something different by the same word."
        ),
        StageExclusionClass.NOT_APPLICABLE: "The stage does not apply to this case at all.",
        StageExclusionClass.REACH_UNKNOWN: (
            "Nothing was captured, so reach could not be decided. Excluded from the reach "
            "denominator rather than counted as a drop-off — a trial we captured nothing for is "
            "not evidence that value stopped there."
        ),
        StageExclusionClass.NOT_MEASURED: "The stage was reached and nothing decided it.",
    }
)

# The §1.3 "Group" column (the glossary's section headings word these differently).
REASON_GROUPS: Mapping[StageReason, str] = MappingProxyType(
    {
        StageReason.NO_SPAN_CHANNEL: "nothing measurable",
        StageReason.NO_EVIDENCE_CAPTURED: "nothing measurable",
        StageReason.MATCH_VERDICT_UNAVAILABLE: "nothing measurable",
        StageReason.TRACE_ABSENT: "nothing measurable",
        StageReason.EXECUTOR_EMITS_NO_SPANS: "nothing measurable",
        StageReason.BLOCKED_BY_POLICY: "nothing measurable",
        StageReason.EVALUATOR_ERROR: "nothing measurable",
        StageReason.PROVIDER_ERROR: "nothing measurable",
        StageReason.SETUP_ABORTED: "nothing measurable",
        # Grouped here by the reference, but always emitted with state `failed` (§1.3 footnote).
        StageReason.CONNECT_FAILED: "nothing measurable",
        StageReason.TOOLS_LIST_FAILED: "nothing measurable",
        StageReason.EGRESS_UNVERIFIED: "nothing measurable",
        StageReason.LIFECYCLE_STOPPED: "nothing measurable",
        StageReason.NOT_AUTHORED: "stage does not apply",
        StageReason.EARLIER_STAGE_FAILED: "position",
        StageReason.MISSING_TOOL_CALL: "measured failure",
        StageReason.UNEXPECTED_TOOL_CALL: "measured failure",
        StageReason.ARGUMENT_MISMATCH: "measured failure",
        StageReason.TOOL_ERROR: "measured failure",
        StageReason.PROTOCOL_ERROR: "measured failure",
        StageReason.RENDER_FAILED: "measured failure",
        StageReason.PREDICATE_FAILED: "measured failure",
        StageReason.OBSERVED: "measured pass",
        StageReason.IMPLIED_BY_LATER_EVIDENCE: "measured pass",
        StageReason.JUDGE_OBSERVED: "advisory LLM judge",
        StageReason.JUDGE_PARTIAL: "advisory LLM judge",
        StageReason.JUDGE_FAILED: "advisory LLM judge",
        StageReason.JUDGE_PENDING: "advisory LLM judge",
        StageReason.JUDGE_NOT_REQUESTED: "advisory LLM judge",
    }
)
