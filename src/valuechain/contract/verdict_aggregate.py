"""`aggregateEvalRunVerdict`: trials → the v2 decision (CONTRACT §6.2–§6.4), and §6.5 statistics.

Pure and deterministic. Trials are observed (§6.2: attempted, completed, evaluator error,
gradeable, or excluded with one of the seven trial-exclusion reasons — never the stage
exclusion classes), rolled up per case × execution variant (§6.3), and the run is decided in
two ordered phases (§6.4): validity first (failing it is `inconclusive`, a decision, not a
defect), then the task verdict. Anything the contract refuses — a completed trial with no
verdict and no evaluator error, an unknown status, more trials reported than configured, a
threshold outside [0,1], a duplicate case identity — raises `VerdictAggregationError`; the
caller reports it as an integrity problem, never as a legacy fallback or an invented reason.

Trial statistics (§6.5) are read-side only: they describe a case, they never decide one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import ValidationError

from valuechain.contract.verdict import (
    CASE_ID_PATTERN,
    MAX_EVAL_CASE_AGGREGATIONS,
    MAX_REPETITIONS,
    CaseAggregation,
    ExecutionVariant,
    Validity,
    ValidityPolicy,
    VerdictDecision,
    case_key,
    trial_rate,
    validity_reasons,
)
from valuechain.contract.vocab import IterationStatus as TrialStatus
from valuechain.contract.vocab import TrialExclusionReason, VerdictDecisionReason

RunVerdictName = Literal["passed", "failed", "inconclusive"]

# `wilsonInterval`'s Z_95 (CONTRACT Q10).
Z_95: Final = 1.959963984540054
CONFIDENCE: Final = 0.95

_X = TrialExclusionReason
_EXCLUSION_BY_STATUS: Final = {
    TrialStatus.PENDING: _X.NOT_TERMINAL,
    TrialStatus.RUNNING: _X.NOT_TERMINAL,
    TrialStatus.SKIPPED: _X.SKIPPED,
    TrialStatus.SETUP_FAILED: _X.SETUP_FAILED,
    TrialStatus.CANCELLED: _X.CANCELLED,
    TrialStatus.TIMED_OUT: _X.TIMED_OUT,
    TrialStatus.FAILED: _X.EXECUTION_FAILED,
}
_NOT_ATTEMPTED: Final = frozenset({TrialStatus.PENDING, TrialStatus.SKIPPED, TrialStatus.CANCELLED})


class VerdictAggregationError(ValueError):
    """`EvalVerdictAggregationError`: the trials cannot be aggregated (an integrity problem)."""


@dataclass(frozen=True, slots=True)
class Trial:
    """`{status, taskVerdict?, evaluatorError?}` (§6.2)."""

    status: TrialStatus
    task_verdict: Literal["passed", "failed"] | None = None
    evaluator_error: bool = False


def observe_trial(status: str | None, result: str | None, evaluator_errored: bool) -> Trial:
    """`evalV2TrialObservation`: status verbatim; only a completed trial gets a verdict.

    Raises:
        VerdictAggregationError: an unknown status, or a completed trial whose result is
            neither `passed` nor `failed` and that has no evaluator error.
    """
    try:
        lifecycle = TrialStatus(status or "")
    except ValueError:
        raise VerdictAggregationError(
            f"trial status {status!r} is not a lifecycle status"
        ) from None
    if lifecycle is not TrialStatus.COMPLETED:
        return Trial(lifecycle)
    if evaluator_errored:
        return Trial(lifecycle, evaluator_error=True)
    if result in ("passed", "failed"):
        return Trial(lifecycle, task_verdict=result)  # type: ignore[arg-type]
    raise VerdictAggregationError(
        f"a completed trial has result {result!r} and no evaluator error: it has no verdict"
    )


@dataclass(frozen=True, slots=True)
class CaseTrials:
    """One case × execution variant's configured trials and the trials reported for it."""

    case_id: str
    configured_trials: int
    pass_threshold: float
    trials: Sequence[Trial]
    variant: ExecutionVariant | None = None


def _exclusion(trial: Trial) -> TrialExclusionReason | None:
    """Why a trial is not gradeable, or None when it is (§6.2)."""
    if trial.status is TrialStatus.COMPLETED:
        if trial.evaluator_error:
            return _X.EVALUATOR_ERROR
        if trial.task_verdict is None:
            raise VerdictAggregationError(
                "a completed trial with no verdict and no evaluator error"
            )
        return None
    return _EXCLUSION_BY_STATUS[trial.status]


def _check_case(case: CaseTrials) -> None:
    if not CASE_ID_PATTERN.match(case.case_id):
        raise VerdictAggregationError(f"case id {case.case_id!r} is not an opaque id")
    if (
        type(case.configured_trials) is not int
        or not 1 <= case.configured_trials <= MAX_REPETITIONS
    ):
        raise VerdictAggregationError(
            f"case {case.case_id}: configured trials {case.configured_trials!r} outside "
            f"1..{MAX_REPETITIONS}"
        )
    if len(case.trials) > case.configured_trials:
        raise VerdictAggregationError(
            f"case {case.case_id}: {len(case.trials)} trials reported for "
            f"{case.configured_trials} configured"
        )
    t = case.pass_threshold
    if type(t) not in (int, float) or not math.isfinite(t) or not 0 <= t <= 1:
        raise VerdictAggregationError(f"case {case.case_id}: pass threshold {t!r} is not in [0,1]")


@dataclass(slots=True)
class _Counts:
    attempted: int = 0
    completed: int = 0
    evaluator_errors: int = 0
    passed: int = 0
    failed: int = 0

    def absorb(self, other: _Counts) -> None:
        self.attempted += other.attempted
        self.completed += other.completed
        self.evaluator_errors += other.evaluator_errors


def _merge(into: dict[TrialExclusionReason, int], more: dict[TrialExclusionReason, int]) -> None:
    for reason, n in more.items():
        into[reason] = into.get(reason, 0) + n


def _ordered(counts: dict[TrialExclusionReason, int]) -> dict[TrialExclusionReason, int]:
    return {r: counts[r] for r in TrialExclusionReason if counts.get(r)}


def aggregate_case(
    case: CaseTrials,
) -> tuple[CaseAggregation, _Counts, dict[TrialExclusionReason, int]]:
    """§6.3 for one case × variant: the aggregation, its counts, its attempt exclusions."""
    _check_case(case)
    counts = _Counts()
    not_gradeable: dict[TrialExclusionReason, int] = {}
    not_attempted: dict[TrialExclusionReason, int] = {}
    unreported = case.configured_trials - len(case.trials)
    for trial in case.trials:
        reason = _exclusion(trial)
        attempted = trial.status not in _NOT_ATTEMPTED
        counts.attempted += attempted
        counts.completed += trial.status is TrialStatus.COMPLETED
        counts.evaluator_errors += trial.evaluator_error and trial.status is TrialStatus.COMPLETED
        if reason is None:
            counts.passed += trial.task_verdict == "passed"
            counts.failed += trial.task_verdict == "failed"
            continue
        not_gradeable[reason] = not_gradeable.get(reason, 0) + 1
        if not attempted:
            not_attempted[reason] = not_attempted.get(reason, 0) + 1
    if unreported:
        _merge(not_gradeable, {_X.NOT_TERMINAL: unreported})
        _merge(not_attempted, {_X.NOT_TERMINAL: unreported})
    eligible = counts.passed + counts.failed
    gradeable_excl, attempt_excl = _ordered(not_gradeable), _ordered(not_attempted)
    pass_rate = trial_rate(counts.passed, eligible, gradeable_excl)
    verdict: RunVerdictName
    if eligible == 0:
        verdict, reason_ = "inconclusive", VerdictDecisionReason.CASE_HAS_NO_ELIGIBLE_TRIALS
    elif pass_rate.value is not None and pass_rate.value >= case.pass_threshold:
        verdict, reason_ = "passed", VerdictDecisionReason.CASE_PASS_RATE_MET_THRESHOLD
    else:
        verdict, reason_ = "failed", VerdictDecisionReason.CASE_PASS_RATE_BELOW_THRESHOLD
    fields: dict[str, object] = {}
    if case.variant is not None:
        fields["execution_variant"] = case.variant
    aggregation = CaseAggregation(
        case_id=case.case_id,
        **fields,  # type: ignore[arg-type]
        configured_trials=case.configured_trials,
        attempted_trials=counts.attempted,
        eligible_trials=eligible,
        passed_trials=counts.passed,
        failed_trials=counts.failed,
        effective_pass_threshold=float(case.pass_threshold),
        pass_rate=pass_rate,
        completion_rate=trial_rate(counts.completed, counts.attempted, attempt_excl),
        observed_stability=trial_rate(max(counts.passed, counts.failed), eligible, gradeable_excl),
        mixed_verdict=counts.passed > 0 and counts.failed > 0,
        verdict=verdict,
        reason=reason_,
    )
    return aggregation, counts, attempt_excl


def aggregate_verdict(cases: Sequence[CaseTrials], policy: ValidityPolicy) -> VerdictDecision:
    """`aggregateEvalRunVerdict`: the validated two-phase decision (§6.4).

    Raises:
        VerdictAggregationError: anything §6.2–§6.3 refuses, or no case at all.
    """
    if not cases:
        raise VerdictAggregationError("the run has no case to decide")
    if len(cases) > MAX_EVAL_CASE_AGGREGATIONS:
        raise VerdictAggregationError(f"more than {MAX_EVAL_CASE_AGGREGATIONS} case aggregations")
    seen: dict[str, bool] = {}
    keys: set[str] = set()
    aggregations: list[CaseAggregation] = []
    total = _Counts()
    attempt_excl: dict[TrialExclusionReason, int] = {}
    for case in cases:
        key = case_key(case.case_id, case.variant)
        if key in keys:
            raise VerdictAggregationError(f"case {case.case_id}: duplicate case × variant")
        if seen.setdefault(case.case_id, case.variant is None) != (case.variant is None):
            raise VerdictAggregationError(f"case {case.case_id}: variant-keyed and unkeyed rows")
        keys.add(key)
        aggregation, counts, excl = aggregate_case(case)
        aggregations.append(aggregation)
        total.absorb(counts)
        _merge(attempt_excl, excl)
    totals = (
        sum(a.configured_trials for a in aggregations),
        total.attempted,
        sum(a.eligible_trials for a in aggregations),
    )
    excl = _ordered(attempt_excl)
    completion = trial_rate(total.completed, total.attempted, excl)
    evaluator_errors = trial_rate(total.evaluator_errors, total.attempted, excl)
    failed = validity_reasons(
        policy,
        totals,
        completion,
        evaluator_errors,
        any(a.eligible_trials == 0 for a in aggregations),
    )
    verdict: RunVerdictName
    if failed:
        verdict, reasons = "inconclusive", failed
    elif any(a.verdict == "failed" for a in aggregations):
        verdict, reasons = "failed", [VerdictDecisionReason.CASE_PASS_RATE_BELOW_THRESHOLD]
    else:
        verdict, reasons = "passed", [VerdictDecisionReason.ALL_MEASURED_CASES_MET_THRESHOLD]
    try:
        return VerdictDecision(
            verdict_policy_version=2,
            verdict=verdict,
            reasons=reasons,
            validity=Validity(
                policy=policy,
                holds=not failed,
                configured_trials=totals[0],
                attempted_trials=totals[1],
                eligible_trials=totals[2],
                completion_rate=completion,
                evaluator_error_rate=evaluator_errors,
            ),
            cases=aggregations,
        )
    except ValidationError as error:  # a producer validates its own output (§6.4)
        raise VerdictAggregationError(f"the decision does not validate: {error}") from error


# --- §6.3 display helper and §6.5 statistics (read-side only) -----------------------------


def case_passes_needed(configured: float, threshold: float) -> int:
    """`casePassesNeeded`: the fewest passes out of `configured` that meet the threshold."""
    if configured <= 0 or threshold <= 0:
        return 0
    n = math.floor(configured)
    target = min(1.0, threshold)
    for k in range(n + 1):
        if k / configured >= target:
            return k
    return n


def _check_counts(n: int, c: int, k: float) -> None:
    for name, value in (("n", n), ("c", c)):
        if type(value) is not int or value < 0:
            raise ValueError(f"{name} must be an integer ≥ 0, got {value!r}")
    if c > n:
        raise ValueError(f"c {c} exceeds n {n}")
    if type(k) not in (int, float) or (isinstance(k, float) and not k.is_integer()):
        raise ValueError(f"k must be an integer, got {k!r}")


def _ratio(a: int, n: int, k: int) -> float:
    """`C(a,k)/C(n,k)` as the running product `Π_{i<k} (a−i)/(n−i)`; exactly 0 when k > a."""
    if k > a:
        return 0.0
    product = 1.0
    for i in range(k):
        product *= (a - i) / (n - i)
    return product


def pass_at_k(n: int, c: int, k: float) -> float | None:
    """`evalPassAtK`: P(at least one pass in k draws); None unless k is in 1..n."""
    _check_counts(n, c, k)
    if not 1 <= k <= n:
        return None
    return 1.0 - _ratio(n - c, n, int(k))


def pass_hat_k(n: int, c: int, k: float) -> float | None:
    """`evalPassHatK`: P(all k draws pass); None unless k is in 1..n."""
    _check_counts(n, c, k)
    if not 1 <= k <= n:
        return None
    return _ratio(c, n, int(k))


def wilson_interval(c: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """Wilson score interval on c/n; lower exactly 0 when c = 0, upper exactly 1 when c = n."""
    if n <= 0:
        return None
    p = c / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    lower = 0.0 if c == 0 else max(0.0, centre - half)
    upper = 1.0 if c == n else min(1.0, centre + half)
    return lower, upper


@dataclass(frozen=True, slots=True)
class TrialStatistics:
    """One case's statistics over its eligible trials (unit `caseVariant`, confidence 0.95)."""

    n: int
    c: int
    k: int
    pass_at_k: float | None
    pass_hat_k: float | None
    pass_rate_interval: tuple[float, float] | None
    unit: str = "caseVariant"
    confidence: float = CONFIDENCE


def trial_statistics(case: CaseAggregation) -> TrialStatistics:
    """§6.5 with n = eligible, c = passed, k = n; everything None (and k = 0) when n = 0."""
    n, c = case.eligible_trials, case.passed_trials
    if n == 0:
        return TrialStatistics(0, 0, 0, None, None, None)
    return TrialStatistics(n, c, n, pass_at_k(n, c, n), pass_hat_k(n, c, n), wilson_interval(c, n))
