"""The closed vocabularies of CONTRACT §1, as StrEnums carrying the exact wire values.

Wire values are the stable contract; member names are ours. Members are defined in the
normative order the spec gives, because that order is used for tallies and sorting
(iterate the class, never sort it). Display words live in `labels.py`; they never feed
a computation. This module is the bottom layer and imports nothing else of valuechain.

One module over the ~400-line guide, on purpose: it is data, one StrEnum per table of
CONTRACT §1, and `tests/contract/test_vocab.py` pins them side by side against the spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final

# --- §1.1–§1.5: the chain -------------------------------------------------------------


class Stage(StrEnum):
    """The six chain stages, in normative order (CONTRACT §1.1)."""

    CONNECTION = "connection"
    DISCOVERY = "discovery"
    SELECTION = "selection"
    CALL = "call"
    RESPONSE = "response"
    USER_VALUE = "userValue"


class StageState(StrEnum):
    """State of one stage row (CONTRACT §1.2)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_REACHED = "notReached"
    NOT_MEASURED = "notMeasured"
    NOT_APPLICABLE = "notApplicable"


class StageReason(StrEnum):
    """The 29 stage reasons; definition order is the tally order (CONTRACT §1.3)."""

    # nothing measurable
    NO_SPAN_CHANNEL = "noSpanChannel"
    NO_EVIDENCE_CAPTURED = "noEvidenceCaptured"
    MATCH_VERDICT_UNAVAILABLE = "matchVerdictUnavailable"
    TRACE_ABSENT = "traceAbsent"
    EXECUTOR_EMITS_NO_SPANS = "executorEmitsNoSpans"
    BLOCKED_BY_POLICY = "blockedByPolicy"
    EVALUATOR_ERROR = "evaluatorError"
    PROVIDER_ERROR = "providerError"
    SETUP_ABORTED = "setupAborted"
    CONNECT_FAILED = "connectFailed"
    TOOLS_LIST_FAILED = "toolsListFailed"
    EGRESS_UNVERIFIED = "egressUnverified"
    LIFECYCLE_STOPPED = "lifecycleStopped"
    # stage does not apply
    NOT_AUTHORED = "notAuthored"
    # position
    EARLIER_STAGE_FAILED = "earlierStageFailed"
    # measured failure
    MISSING_TOOL_CALL = "missingToolCall"
    UNEXPECTED_TOOL_CALL = "unexpectedToolCall"
    ARGUMENT_MISMATCH = "argumentMismatch"
    TOOL_ERROR = "toolError"
    PROTOCOL_ERROR = "protocolError"
    RENDER_FAILED = "renderFailed"
    PREDICATE_FAILED = "predicateFailed"
    # measured pass
    OBSERVED = "observed"
    IMPLIED_BY_LATER_EVIDENCE = "impliedByLaterEvidence"
    # advisory LLM judge
    JUDGE_OBSERVED = "judgeObserved"
    JUDGE_PARTIAL = "judgePartial"
    JUDGE_FAILED = "judgeFailed"
    JUDGE_PENDING = "judgePending"
    JUDGE_NOT_REQUESTED = "judgeNotRequested"


class FailureCategory(StrEnum):
    """Why there is no good outcome — a bucket, not a stage (CONTRACT §1.4)."""

    SETUP = "setup"
    METADATA = "metadata"
    SELECTION = "selection"
    ARGUMENTS = "arguments"
    SERVER_DATA = "serverData"
    USER_VALUE = "userValue"
    EVALUATOR = "evaluator"


class IterationStatus(StrEnum):
    """Trial lifecycle status, orthogonal to the task verdict (CONTRACT §1.5)."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    SETUP_FAILED = "setup_failed"
    SKIPPED = "skipped"


# --- §1.6–§1.7: verdicts ----------------------------------------------------------------


class Verdict(StrEnum):
    """Decision-summary verdict (CONTRACT §1.6)."""

    PASSED = "passed"
    FAILED = "failed"
    INCONCLUSIVE = "inconclusive"
    NOT_ESTABLISHED = "notEstablished"


class UndecidedReason(StrEnum):
    """Why no verdict was established, `undecided.reason` (CONTRACT §1.6)."""

    RUN_NOT_TERMINAL = "runNotTerminal"
    RUN_STATUS_NOT_A_VERDICT = "runStatusNotAVerdict"
    RUN_RESULT_NOT_A_VERDICT = "runResultNotAVerdict"
    VERDICT_SUMMARY_UNAVAILABLE = "verdictSummaryUnavailable"


class VerdictSource(StrEnum):
    """Where a decision-summary verdict came from (CONTRACT §1.6)."""

    POLICY_V2 = "policyV2"
    LEGACY = "legacy"
    NONE = "none"


class MeasurementUnit(StrEnum):
    """What one count counts (CONTRACT §1.6)."""

    CASE_VARIANT = "caseVariant"
    TRIAL = "trial"


class VerdictDecisionReason(StrEnum):
    """Validity reasons, then task reasons; index order is the sort order (CONTRACT §1.7)."""

    # validity (force inconclusive)
    CONFIGURED_TRIALS_NOT_ATTEMPTED = "configuredTrialsNotAttempted"
    NO_GRADEABLE_TRIALS = "noGradeableTrials"
    ELIGIBLE_TRIALS_BELOW_MINIMUM = "eligibleTrialsBelowMinimum"
    COMPLETION_RATE_BELOW_MINIMUM = "completionRateBelowMinimum"
    COMPLETION_RATE_NOT_MEASURED = "completionRateNotMeasured"
    EVALUATOR_ERROR_RATE_ABOVE_MAXIMUM = "evaluatorErrorRateAboveMaximum"
    EVALUATOR_ERROR_RATE_NOT_MEASURED = "evaluatorErrorRateNotMeasured"
    CASE_HAS_NO_ELIGIBLE_TRIALS = "caseHasNoEligibleTrials"
    # task
    CASE_PASS_RATE_MET_THRESHOLD = "casePassRateMetThreshold"
    CASE_PASS_RATE_BELOW_THRESHOLD = "casePassRateBelowThreshold"
    ALL_MEASURED_CASES_MET_THRESHOLD = "allMeasuredCasesMetThreshold"


# --- §1.8: the two exclusion vocabularies (never merge them) ---------------------------


class StageExclusionClass(StrEnum):
    """Why an observation left a funnel, `EVAL_STAGE_EXCLUSION_CLASSES` (CONTRACT §1.8)."""

    LIFECYCLE = "lifecycle"
    INTEGRITY = "integrity"
    VERSION = "version"
    NOT_APPLICABLE = "notApplicable"
    REACH_UNKNOWN = "reachUnknown"
    NOT_MEASURED = "notMeasured"


class TrialExclusionReason(StrEnum):
    """Why a trial left a pass-rate/validity denominator (CONTRACT §1.8, §6.2)."""

    NOT_TERMINAL = "notTerminal"
    SKIPPED = "skipped"
    SETUP_FAILED = "setupFailed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timedOut"
    EXECUTION_FAILED = "executionFailed"
    EVALUATOR_ERROR = "evaluatorError"


class ExcludedTrialDetail(StrEnum):
    """The 14 run-level coverage-detail keys of stage analytics (CONTRACT §1.8)."""

    # lifecycle (note: cancelled before setupFailed, unlike TrialExclusionReason)
    NOT_TERMINAL = "notTerminal"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"
    SETUP_FAILED = "setupFailed"
    TIMED_OUT = "timedOut"
    EXECUTION_FAILED = "executionFailed"
    EVALUATOR_ERROR = "evaluatorError"
    # chain integrity
    CHAIN_MISSING = "chainMissing"
    CHAIN_UNVERIFIED = "chainUnverified"
    CHAIN_VERSION_AHEAD = "chainVersionAhead"
    # measurement integrity
    MEASUREMENTS_MISSING = "measurementsMissing"
    MEASUREMENTS_INVALID = "measurementsInvalid"
    MEASUREMENTS_VERSION_AHEAD = "measurementsVersionAhead"
    # cross-half
    ANALYZER_MISMATCH = "analyzerMismatch"


# --- §1.9: smaller enums ----------------------------------------------------------------


class MaterializationState(StrEnum):
    """Whether an analytics row may still change; there is no `stale` (CONTRACT §1.9)."""

    PROVISIONAL = "provisional"
    FINAL = "final"


class Reach(StrEnum):
    """Per-stage reach of a trial (CONTRACT §1.9, §4)."""

    REACHED = "reached"
    NOT_REACHED = "notReached"
    UNKNOWN = "unknown"
    NOT_APPLICABLE = "notApplicable"


class RateState(StrEnum):
    """Discriminant of the rate envelope (CONTRACT §1.9, §5.8)."""

    MEASURED = "measured"
    NOT_MEASURED = "notMeasured"


class SetupPhase(StrEnum):
    """Run-level setup phase (CONTRACT §1.9, §5.6)."""

    CONNECTION = "connection"
    DISCOVERY = "discovery"


class SliceDimension(StrEnum):
    """Analytics slice dimension, in emission order (CONTRACT §1.9, §5.2)."""

    OVERALL = "overall"
    INTENT = "intent"
    MODEL = "model"
    HOST = "host"


class ParityBlocker(StrEnum):
    """Vocabulary order; `stageAnalyticsParityBlockers` emits another (CONTRACT §1.9, §5.11)."""

    MISSING_RUN_GROUP = "missingRunGroup"
    DIFFERENT_RUN_GROUP = "differentRunGroup"
    MISSING_CONFIG_IDENTITY = "missingConfigIdentity"
    DIFFERENT_CONFIG_IDENTITY = "differentConfigIdentity"
    MISSING_CASE_SET_IDENTITY = "missingCaseSetIdentity"
    DIFFERENT_CASE_SET_IDENTITY = "differentCaseSetIdentity"
    DIFFERENT_ANALYZER_VERSION = "differentAnalyzerVersion"
    DIFFERENT_MEASUREMENTS_VERSION = "differentMeasurementsVersion"
    DIFFERENT_MEASUREMENT_UNIT = "differentMeasurementUnit"
    MIXED_SOURCE_VERSIONS = "mixedSourceVersions"
    PROVISIONAL = "provisional"


class SetupOutcome(StrEnum):
    """Setup signal outcome (CONTRACT §1.9)."""

    OK = "ok"
    FAILED = "failed"


class SetupAttribution(StrEnum):
    """Whose side a setup failure is on (CONTRACT §1.9)."""

    OURS = "ours"
    THEIRS = "theirs"
    UNKNOWN = "unknown"


class StepErrorSource(StrEnum):
    """Source of a step error; only `model` triggers provider withdrawal (CONTRACT §1.9, §2.9)."""

    MODEL = "model"
    SETUP = "setup"


class JudgeStatus(StrEnum):
    """Status of a tier-2 judge result (CONTRACT §1.9)."""

    SCORED = "scored"
    ERROR = "error"
    SKIPPED = "skipped"
    NOT_APPLICABLE = "not_applicable"
    PENDING = "pending"


class JudgeVerdict(StrEnum):
    """Goal-completion judge verdict (CONTRACT §1.9)."""

    PASS = "pass"
    PARTIAL = "partial"
    FAIL = "fail"


class JudgePendingKind(StrEnum):
    """Why a judge result is pending (CONTRACT §1.9)."""

    SCHEDULED = "scheduled"
    NOT_REQUESTED = "not_requested"


class AuthoredMode(StrEnum):
    """Authored-case mode; compared as an exact string (CONTRACT §1.9, §2.2)."""

    MODEL_DRIVEN = "model_driven"
    MODEL_FREE = "model_free"


class ToolExpectation(StrEnum):
    """Chat-session tool expectation (CONTRACT §1.9, §2.2)."""

    REQUIRED = "required"
    NOT_REQUIRED = "not_required"
    OPEN = "open"


class ToolErrorKind(StrEnum):
    """Kind of a tool-error record (CONTRACT §1.9)."""

    CONTENT_ERROR = "content-error"
    PROTOCOL_ERROR = "protocol-error"


class RenderStatus(StrEnum):
    """Widget render outcome; only `rendered` is success (CONTRACT §1.9)."""

    RENDERED = "rendered"
    NO_UI_RESOURCE = "no_ui_resource"
    RESOURCE_READ_FAILED = "resource_read_failed"
    MOUNT_FAILED = "mount_failed"
    BRIDGE_TIMEOUT = "bridge_timeout"
    RENDER_ERROR = "render_error"
    BLANK_SCREENSHOT = "blank_screenshot"
    SCREENSHOT_FAILED = "screenshot_failed"
    BROWSER_UNAVAILABLE = "browser_unavailable"


class CheckRole(StrEnum):
    """Check role; absent or unknown means gating (CONTRACT §1.9, §2.5)."""

    GATING = "gating"
    ADVISORY = "advisory"


class CheckSeverity(StrEnum):
    """Check severity; only with an advisory role (CONTRACT §1.9)."""

    WARN = "warn"


class ScoreStatus(StrEnum):
    """Status of a scorer row (CONTRACT §1.9)."""

    SCORED = "scored"
    ERROR = "error"
    SKIPPED = "skipped"
    NOT_APPLICABLE = "not_applicable"


class ErrorPolicy(StrEnum):
    """What an errored or skipped scorer means (`onError` / `onSkipped`) (CONTRACT §1.9)."""

    FAIL = "fail"
    IGNORE = "ignore"


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


# --- wire constants beside the enums ------------------------------------------------------

# A latency sample's `unit` and `basis` (CONTRACT §4 `LatencySample`, §5.7).
LATENCY_UNIT: Final = "ms"
LATENCY_BASIS_EVIDENCE_SPAN_UNION: Final = "evidence_span_union"
LATENCY_BASIS_SETUP_PHASE_WALL: Final = "setup_phase_wall"

# --- JavaScript semantics the reference relies on (CONTRACT §0.2, §9 Q8/Q9) ---------------

# ECMAScript WhiteSpace + LineTerminator (the set `String.prototype.trim` strips). Python's
# `str.strip()` differs: it also strips U+001C–U+001F and U+0085, and keeps U+FEFF.
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)

# `Number.MAX_SAFE_INTEGER`: beyond it a JS number no longer holds every integer.
JS_MAX_SAFE_INTEGER: Final = (1 << 53) - 1
