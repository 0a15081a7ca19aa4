"""The v2 verdict decision (CONTRACT §6.1–§6.4): rates, validity policy, cases, decision.

Strict pydantic models of what `aggregateEvalRunVerdict` returns, each with the cross-field
rules of the reference validators: a rate's `value` is EXACTLY `numerator / denominator`
(IEEE-754, no rounding); a case's verdict follows from its counts and threshold; the
decision's totals are the sums of its cases, `holds` and `reasons` are recomputed from them
and the policy, and `reasons` is in vocabulary order (§1.7). A producer validates its own
output before returning it, so an inconsistent decision can never be stored.

Apart from the decision summary (`verdict_summary.py`), which explains a decision and never
makes one, and from the aggregator (`verdict_aggregate.py`), which builds these from trials.
"""

from __future__ import annotations

import re
from typing import Annotated, Final, Literal

from pydantic import MISSING, Field, model_validator

from valuechain.contract.tallies import Count, Fraction, StrictModel, snake_case
from valuechain.contract.vocab import TrialExclusionReason, Verdict, VerdictDecisionReason

EVAL_VERDICT_POLICY_SCHEMA_ID: Final = "https://mcpjam.com/schemas/eval-verdict-policy/v2.json"

MAX_REPETITIONS: Final = 100  # configured trials per (case, variant), §6.1
MAX_SUITE_FILE_CASES: Final = 500  # distinct case ids, §6.1
MAX_EVAL_CASE_AGGREGATIONS: Final = MAX_SUITE_FILE_CASES * MAX_REPETITIONS  # 50 000 rows
MAX_VARIANT_NAME_CHARS: Final = 200

DEFAULT_MIN_COMPLETION_RATE: Final = 0.8
DEFAULT_MAX_EVALUATOR_ERROR_RATE: Final = 0.1

CASE_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
KEY_SEPARATOR: Final = "\u0000"

# The run verdicts the policy itself produces (`EVAL_RUN_VERDICTS`): never notEstablished.
RUN_VERDICTS: Final = (Verdict.PASSED, Verdict.FAILED, Verdict.INCONCLUSIVE)
VALIDITY_REASONS: Final = tuple(VerdictDecisionReason)[:8]
TASK_REASONS: Final = tuple(VerdictDecisionReason)[8:]
_REASON_INDEX: Final = {reason: i for i, reason in enumerate(VerdictDecisionReason)}

_R = VerdictDecisionReason
CaseId = Annotated[str, Field(pattern=CASE_ID_PATTERN.pattern)]
ConfiguredTrials = Annotated[int, Field(ge=1, le=MAX_REPETITIONS)]
RunVerdict = Literal["passed", "failed", "inconclusive"]
ReasonField = Annotated[VerdictDecisionReason, Field(strict=False)]
VariantName = Annotated[str, Field(min_length=1, max_length=MAX_VARIANT_NAME_CHARS)]


# --- trial exclusions and the rate envelope (§6.1, §1.8) -----------------------------------


class TrialExclusions(StrictModel):
    """Trials each reason removed from one denominator; a reason that removed none is absent."""

    not_terminal: Count | MISSING = MISSING
    skipped: Count | MISSING = MISSING
    setup_failed: Count | MISSING = MISSING
    cancelled: Count | MISSING = MISSING
    timed_out: Count | MISSING = MISSING
    execution_failed: Count | MISSING = MISSING
    evaluator_error: Count | MISSING = MISSING

    @classmethod
    def of(cls, counts: dict[TrialExclusionReason, int]) -> TrialExclusions:
        """From per-reason counts; zero counts are left absent."""
        return cls(**{snake_case(r.value): n for r, n in counts.items() if n > 0})

    def counts(self) -> dict[TrialExclusionReason, int]:
        """The present reasons in vocabulary order."""
        out: dict[TrialExclusionReason, int] = {}
        for reason in TrialExclusionReason:
            value = self.__dict__[snake_case(reason.value)]
            if value is not MISSING and value > 0:
                out[reason] = value
        return out


class MeasuredTrialRate(StrictModel):
    state: Literal["measured"]
    value: Fraction
    numerator: Count
    denominator: Annotated[int, Field(ge=1)]
    exclusions: TrialExclusions

    @model_validator(mode="after")
    def _quotient(self) -> MeasuredTrialRate:
        if self.numerator > self.denominator:
            raise ValueError(f"numerator {self.numerator} exceeds denominator {self.denominator}")
        if self.value != self.numerator / self.denominator:
            raise ValueError(
                f"value {self.value} is not {self.numerator}/{self.denominator}: a rate is the "
                "exact quotient of the counts it ships with"
            )
        return self


class NotMeasuredTrialRate(StrictModel):
    state: Literal["notMeasured"]
    value: None
    numerator: Literal[0]
    denominator: Literal[0]
    exclusions: TrialExclusions


TrialRate = Annotated[MeasuredTrialRate | NotMeasuredTrialRate, Field(discriminator="state")]


def trial_rate(
    numerator: int, denominator: int, exclusions: dict[TrialExclusionReason, int]
) -> MeasuredTrialRate | NotMeasuredTrialRate:
    """`n / d`, or `notMeasured` when nothing is in the denominator (0/0 is not a number)."""
    excl = TrialExclusions.of(exclusions)
    if denominator <= 0:
        return NotMeasuredTrialRate(
            state="notMeasured", value=None, numerator=0, denominator=0, exclusions=excl
        )
    return MeasuredTrialRate(
        state="measured",
        value=numerator / denominator,
        numerator=numerator,
        denominator=denominator,
        exclusions=excl,
    )


# --- the resolved validity policy (§6.1) --------------------------------------------------


class AllConfiguredTrialsAttempted(StrictModel):
    kind: Literal["allConfiguredTrialsAttempted"]
    min_gradeable_trials: Literal[1]


class MinEligibleTrials(StrictModel):
    kind: Literal["minEligibleTrials"]
    min_eligible_trials: Annotated[int, Field(ge=1)]


Coverage = Annotated[AllConfiguredTrialsAttempted | MinEligibleTrials, Field(discriminator="kind")]


class ValidityPolicy(StrictModel):
    """`ResolvedEvalValidityPolicy`: the coverage rule and the two independent rate limits."""

    coverage: Coverage
    min_completion_rate: Fraction
    max_evaluator_error_rate: Fraction

    @classmethod
    def resolve(
        cls,
        min_eligible_trials: int | None = None,
        min_completion_rate: float | None = None,
        max_evaluator_error_rate: float | None = None,
    ) -> ValidityPolicy:
        """The suite's settings with the contract defaults for what it omits (§6.1)."""
        coverage: AllConfiguredTrialsAttempted | MinEligibleTrials = (
            AllConfiguredTrialsAttempted(
                kind="allConfiguredTrialsAttempted", min_gradeable_trials=1
            )
            if min_eligible_trials is None
            else MinEligibleTrials(
                kind="minEligibleTrials", min_eligible_trials=min_eligible_trials
            )
        )
        return cls(
            coverage=coverage,
            min_completion_rate=(
                DEFAULT_MIN_COMPLETION_RATE if min_completion_rate is None else min_completion_rate
            ),
            max_evaluator_error_rate=(
                DEFAULT_MAX_EVALUATOR_ERROR_RATE
                if max_evaluator_error_rate is None
                else max_evaluator_error_rate
            ),
        )


# --- per case × execution variant (§6.3) --------------------------------------------------


class ExecutionVariant(StrictModel):
    """The provider/model pair a case's trials ran under (absent: the run did not fan out)."""

    model: VariantName
    provider: VariantName | MISSING = MISSING


def case_key(case_id: str, variant: ExecutionVariant | None) -> str:
    """`evalCaseAggregationKey`: `caseId␀` unkeyed, else `caseId␀provider␀model`."""
    if variant is None:
        return case_id + KEY_SEPARATOR
    provider = "" if variant.provider is MISSING else variant.provider
    return f"{case_id}{KEY_SEPARATOR}{provider}{KEY_SEPARATOR}{variant.model}"


class CaseAggregation(StrictModel):
    """One case (per execution variant) rolled up; the verdict follows from the counts."""

    case_id: CaseId
    execution_variant: ExecutionVariant | MISSING = MISSING
    configured_trials: ConfiguredTrials
    attempted_trials: Count
    eligible_trials: Count
    passed_trials: Count
    failed_trials: Count
    effective_pass_threshold: Fraction
    pass_rate: TrialRate
    completion_rate: TrialRate
    observed_stability: TrialRate
    mixed_verdict: bool
    verdict: RunVerdict
    reason: ReasonField

    @property
    def key(self) -> str:
        variant = None if self.execution_variant is MISSING else self.execution_variant
        return case_key(self.case_id, variant)

    @model_validator(mode="after")
    def _arithmetic(self) -> CaseAggregation:
        if self.attempted_trials > self.configured_trials:
            raise ValueError("attemptedTrials exceeds configuredTrials")
        if self.eligible_trials > self.attempted_trials:
            raise ValueError("eligibleTrials exceeds attemptedTrials")
        if self.passed_trials + self.failed_trials != self.eligible_trials:
            raise ValueError("passedTrials + failedTrials must equal eligibleTrials")
        if self.mixed_verdict != (self.passed_trials > 0 and self.failed_trials > 0):
            raise ValueError("mixedVerdict must be true exactly when both a pass and a fail exist")
        expect = (
            ("passRate", self.pass_rate, self.passed_trials, self.eligible_trials),
            ("completionRate", self.completion_rate, None, self.attempted_trials),
            (
                "observedStability",
                self.observed_stability,
                max(self.passed_trials, self.failed_trials),
                self.eligible_trials,
            ),
        )
        for name, rate, numerator, denominator in expect:
            if rate.denominator != denominator or (
                numerator is not None and rate.state == "measured" and rate.numerator != numerator
            ):
                raise ValueError(f"{name} is not over the case's own counts")
        if self.eligible_trials == 0:
            verdict, reason = "inconclusive", _R.CASE_HAS_NO_ELIGIBLE_TRIALS
        elif self.pass_rate.value is not None and (
            self.pass_rate.value >= self.effective_pass_threshold
        ):
            verdict, reason = "passed", _R.CASE_PASS_RATE_MET_THRESHOLD
        else:
            verdict, reason = "failed", _R.CASE_PASS_RATE_BELOW_THRESHOLD
        if (self.verdict, self.reason) != (verdict, reason):
            raise ValueError(f"the case's counts make it {verdict} / {reason.value}")
        return self


# --- the decision (§6.4) -----------------------------------------------------------------


class Validity(StrictModel):
    """Suite-level trial totals and the two validity rates over them."""

    policy: ValidityPolicy
    holds: bool
    configured_trials: Count
    attempted_trials: Count
    eligible_trials: Count
    completion_rate: TrialRate
    evaluator_error_rate: TrialRate


def validity_reasons(
    policy: ValidityPolicy,
    totals: tuple[int, int, int],
    completion: MeasuredTrialRate | NotMeasuredTrialRate,
    evaluator_errors: MeasuredTrialRate | NotMeasuredTrialRate,
    any_case_unmeasured: bool,
) -> list[VerdictDecisionReason]:
    """The failed validity checks of phase 1, in vocabulary order (§6.4)."""
    configured, attempted, eligible = totals
    reasons: list[VerdictDecisionReason] = []
    if isinstance(policy.coverage, MinEligibleTrials):
        if eligible < policy.coverage.min_eligible_trials:
            reasons.append(_R.ELIGIBLE_TRIALS_BELOW_MINIMUM)
    else:
        if attempted != configured:
            reasons.append(_R.CONFIGURED_TRIALS_NOT_ATTEMPTED)
        if eligible < policy.coverage.min_gradeable_trials:
            reasons.append(_R.NO_GRADEABLE_TRIALS)
    if completion.value is None:
        reasons.append(_R.COMPLETION_RATE_NOT_MEASURED)
    elif completion.value < policy.min_completion_rate:
        reasons.append(_R.COMPLETION_RATE_BELOW_MINIMUM)
    if evaluator_errors.value is None:
        reasons.append(_R.EVALUATOR_ERROR_RATE_NOT_MEASURED)
    elif evaluator_errors.value > policy.max_evaluator_error_rate:
        reasons.append(_R.EVALUATOR_ERROR_RATE_ABOVE_MAXIMUM)
    if any_case_unmeasured:
        reasons.append(_R.CASE_HAS_NO_ELIGIBLE_TRIALS)
    return sorted(reasons, key=_REASON_INDEX.__getitem__)


class VerdictDecision(StrictModel):
    """`EvalVerdictDecision`: the run's verdict, the validity phase that gated it, its cases."""

    verdict_policy_version: Literal[2]
    verdict: RunVerdict
    reasons: Annotated[list[ReasonField], Field(min_length=1, max_length=len(_REASON_INDEX))]
    validity: Validity
    cases: Annotated[
        list[CaseAggregation], Field(min_length=1, max_length=MAX_EVAL_CASE_AGGREGATIONS)
    ]

    @model_validator(mode="after")
    def _decision(self) -> VerdictDecision:
        _check_case_identities(self.cases)
        v = self.validity
        totals = (
            sum(c.configured_trials for c in self.cases),
            sum(c.attempted_trials for c in self.cases),
            sum(c.eligible_trials for c in self.cases),
        )
        if totals != (v.configured_trials, v.attempted_trials, v.eligible_trials):
            raise ValueError("validity totals are not the sums over the cases")
        for name, rate in (
            ("completionRate", v.completion_rate),
            ("evaluatorErrorRate", v.evaluator_error_rate),
        ):
            if rate.denominator != v.attempted_trials:
                raise ValueError(f"validity {name} is not over attemptedTrials")
        failed = validity_reasons(
            v.policy,
            totals,
            v.completion_rate,
            v.evaluator_error_rate,
            any(c.eligible_trials == 0 for c in self.cases),
        )
        if v.holds != (not failed):
            raise ValueError("validity.holds does not follow from the totals and the policy")
        if failed:
            verdict, reasons = "inconclusive", failed
        elif any(c.verdict == "failed" for c in self.cases):
            verdict, reasons = "failed", [_R.CASE_PASS_RATE_BELOW_THRESHOLD]
        else:
            verdict, reasons = "passed", [_R.ALL_MEASURED_CASES_MET_THRESHOLD]
        if self.verdict != verdict or list(self.reasons) != reasons:
            raise ValueError(
                f"the decision must be {verdict} with reasons "
                f"[{', '.join(r.value for r in reasons)}]"
            )
        return self

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)


def _check_case_identities(cases: list[CaseAggregation]) -> None:
    keys = [c.key for c in cases]
    if len(set(keys)) != len(keys):
        raise ValueError("two case aggregations share one case × execution variant")
    keyed: dict[str, set[bool]] = {}
    for c in cases:
        keyed.setdefault(c.case_id, set()).add(c.execution_variant is MISSING)
    mixed = sorted(case for case, kinds in keyed.items() if len(kinds) > 1)
    if mixed:
        raise ValueError(f"case {mixed[0]} mixes variant-keyed and unkeyed rows")
    if len(keyed) > MAX_SUITE_FILE_CASES:
        raise ValueError(f"more than {MAX_SUITE_FILE_CASES} distinct cases")
