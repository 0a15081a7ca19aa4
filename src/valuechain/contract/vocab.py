"""The closed vocabularies of CONTRACT §1, as StrEnums carrying the exact wire values.

Wire values are the stable contract; member names are ours. Members are defined in the
normative order the spec gives, because that order is used for tallies and sorting
(iterate the class, never sort it). Display words live in `labels.py` and never feed a
computation; the tables relating one vocabulary to another live in `vocab_rules.py`. What
stays is every enum of §1, pinned as one set by `tests/contract/test_vocab.py`, and a few
wire constants. It is the bottom layer and imports nothing else of valuechain.
"""

from __future__ import annotations

from enum import StrEnum
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
