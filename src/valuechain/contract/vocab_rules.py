"""Fixed tables over the §1 vocabularies: stage order, reason states, statuses, next actions.

Each table is normative (CONTRACT §1.3, §1.4, §1.6–§1.8, §5.4, §6.6, §6.7): the state a
writer pairs with each reason, the statuses that are terminal, how verdict reasons divide,
the class each coverage-detail key counts under, what a diagnostic tells the reader to do.
They relate one vocabulary to another, so they sit beside `vocab.py` rather than in it: that
module stays the closed list of enums the spec pins.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from valuechain.contract.vocab import (
    ExcludedTrialDetail,
    FailureCategory,
    IterationStatus,
    Stage,
    StageExclusionClass,
    StageReason,
    StageState,
    Verdict,
    VerdictDecisionReason,
)

# --- Structural constants ---------------------------------------------------------------

STAGES: tuple[Stage, ...] = tuple(Stage)

_STAGE_INDEX: Mapping[Stage, int] = MappingProxyType({s: i for i, s in enumerate(STAGES)})


def stage_index(stage: Stage) -> int:
    """Position of `stage` in the normative order, 0 (connection) to 5 (userValue)."""
    return _STAGE_INDEX[stage]


# The only state a writer may pair with each reason; a reader accepts any pairing
# (CONTRACT §1.3, Q11).
REASON_STATES: Mapping[StageReason, StageState] = MappingProxyType(
    {
        StageReason.NO_SPAN_CHANNEL: StageState.NOT_MEASURED,
        StageReason.NO_EVIDENCE_CAPTURED: StageState.NOT_MEASURED,
        StageReason.MATCH_VERDICT_UNAVAILABLE: StageState.NOT_MEASURED,
        StageReason.TRACE_ABSENT: StageState.NOT_MEASURED,
        StageReason.EXECUTOR_EMITS_NO_SPANS: StageState.NOT_MEASURED,
        StageReason.BLOCKED_BY_POLICY: StageState.NOT_MEASURED,
        StageReason.EVALUATOR_ERROR: StageState.NOT_MEASURED,
        StageReason.PROVIDER_ERROR: StageState.NOT_MEASURED,
        StageReason.SETUP_ABORTED: StageState.NOT_MEASURED,
        StageReason.CONNECT_FAILED: StageState.FAILED,
        StageReason.TOOLS_LIST_FAILED: StageState.FAILED,
        StageReason.EGRESS_UNVERIFIED: StageState.NOT_MEASURED,
        StageReason.LIFECYCLE_STOPPED: StageState.NOT_MEASURED,
        StageReason.NOT_AUTHORED: StageState.NOT_APPLICABLE,
        StageReason.EARLIER_STAGE_FAILED: StageState.NOT_REACHED,
        StageReason.MISSING_TOOL_CALL: StageState.FAILED,
        StageReason.UNEXPECTED_TOOL_CALL: StageState.FAILED,
        StageReason.ARGUMENT_MISMATCH: StageState.FAILED,
        StageReason.TOOL_ERROR: StageState.FAILED,
        StageReason.PROTOCOL_ERROR: StageState.FAILED,
        StageReason.RENDER_FAILED: StageState.FAILED,
        StageReason.PREDICATE_FAILED: StageState.FAILED,
        StageReason.OBSERVED: StageState.PASSED,
        StageReason.IMPLIED_BY_LATER_EVIDENCE: StageState.PASSED,
        StageReason.JUDGE_OBSERVED: StageState.PASSED,
        StageReason.JUDGE_PARTIAL: StageState.FAILED,
        StageReason.JUDGE_FAILED: StageState.FAILED,
        StageReason.JUDGE_PENDING: StageState.NOT_MEASURED,
        StageReason.JUDGE_NOT_REQUESTED: StageState.NOT_MEASURED,
    }
)

# Trial statuses past which nothing more happens: everything but pending/running, which
# map to `notTerminal` (CONTRACT §5.4 step 2, §6.2, Q14).
TERMINAL_STATUSES: frozenset[IterationStatus] = frozenset(
    {
        IterationStatus.COMPLETED,
        IterationStatus.FAILED,
        IterationStatus.CANCELLED,
        IterationStatus.TIMED_OUT,
        IterationStatus.SETUP_FAILED,
        IterationStatus.SKIPPED,
    }
)

# RUN statuses a decision summary treats as terminal; any other ⇒ `runNotTerminal`
# (CONTRACT §6.6 step 1). Narrower than TERMINAL_STATUSES: never use one for the other.
RUN_TERMINAL_STATUSES: frozenset[IterationStatus] = frozenset(
    {
        IterationStatus.COMPLETED,
        IterationStatus.FAILED,
        IterationStatus.CANCELLED,
        IterationStatus.TIMED_OUT,
    }
)

# The verdicts policy v2 can produce, `EVAL_RUN_VERDICTS` (CONTRACT §1.6).
EVAL_RUN_VERDICTS: tuple[Verdict, ...] = (Verdict.PASSED, Verdict.FAILED, Verdict.INCONCLUSIVE)

# Validity reasons force `inconclusive`; task reasons only appear when validity holds (§1.7, §6.4).
VALIDITY_DECISION_REASONS: tuple[VerdictDecisionReason, ...] = (
    VerdictDecisionReason.CONFIGURED_TRIALS_NOT_ATTEMPTED,
    VerdictDecisionReason.NO_GRADEABLE_TRIALS,
    VerdictDecisionReason.ELIGIBLE_TRIALS_BELOW_MINIMUM,
    VerdictDecisionReason.COMPLETION_RATE_BELOW_MINIMUM,
    VerdictDecisionReason.COMPLETION_RATE_NOT_MEASURED,
    VerdictDecisionReason.EVALUATOR_ERROR_RATE_ABOVE_MAXIMUM,
    VerdictDecisionReason.EVALUATOR_ERROR_RATE_NOT_MEASURED,
    VerdictDecisionReason.CASE_HAS_NO_ELIGIBLE_TRIALS,
)
TASK_DECISION_REASONS: tuple[VerdictDecisionReason, ...] = (
    VerdictDecisionReason.CASE_PASS_RATE_MET_THRESHOLD,
    VerdictDecisionReason.CASE_PASS_RATE_BELOW_THRESHOLD,
    VerdictDecisionReason.ALL_MEASURED_CASES_MET_THRESHOLD,
)

# The class each coverage-detail key is counted under. The *VersionAhead keys are class
# `version`, not `integrity`, despite §1.8's grouping headings (CONTRACT §5.4, §7.4).
EXCLUDED_TRIAL_DETAIL_CLASSES: Mapping[ExcludedTrialDetail, StageExclusionClass] = MappingProxyType(
    {
        ExcludedTrialDetail.NOT_TERMINAL: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.SKIPPED: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.CANCELLED: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.SETUP_FAILED: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.TIMED_OUT: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.EXECUTION_FAILED: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.EVALUATOR_ERROR: StageExclusionClass.LIFECYCLE,
        ExcludedTrialDetail.CHAIN_MISSING: StageExclusionClass.INTEGRITY,
        ExcludedTrialDetail.CHAIN_UNVERIFIED: StageExclusionClass.INTEGRITY,
        ExcludedTrialDetail.CHAIN_VERSION_AHEAD: StageExclusionClass.VERSION,
        ExcludedTrialDetail.MEASUREMENTS_MISSING: StageExclusionClass.INTEGRITY,
        ExcludedTrialDetail.MEASUREMENTS_INVALID: StageExclusionClass.INTEGRITY,
        ExcludedTrialDetail.MEASUREMENTS_VERSION_AHEAD: StageExclusionClass.VERSION,
        ExcludedTrialDetail.ANALYZER_MISMATCH: StageExclusionClass.INTEGRITY,
    }
)

# --- Next actions: wire strings emitted in diagnostics (CONTRACT §1.4, §6.7) -------------

NEXT_ACTIONS: Mapping[FailureCategory, str] = MappingProxyType(
    {
        FailureCategory.SETUP: "check the server connection and environment configuration",
        FailureCategory.METADATA: "review the tool metadata and descriptions in the server catalog",
        FailureCategory.SELECTION: "review tool selection and the tool catalog",
        FailureCategory.ARGUMENTS: "review the authored arguments against the tool input schema",
        FailureCategory.SERVER_DATA: "inspect the tool response returned by the server",
        FailureCategory.USER_VALUE: "review whether the response answered the user's goal",
        FailureCategory.EVALUATOR: "check the evaluator configuration; the case was not graded",
    }
)

FALLBACK_NEXT_ACTION = "inspect the case trace; no failure category was recorded"

VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION = (
    "the recorded verdict disagrees with the measured chain; inspect the case trace"
)

# Used when the chain's analyzer version is < 7 (CONTRACT §6.7); contains U+2014.
STALE_ANALYZER_NEXT_ACTION = (
    "the recorded verdict disagrees with the measured chain; this run's chain was derived "
    "by an older analyzer that measures less than the current one — re-run the case "
    "before investigating further"
)
