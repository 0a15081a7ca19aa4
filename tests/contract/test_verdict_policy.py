"""Verdict policy v2 (CONTRACT §6.1–§6.5): the §8.3 worked examples as vectors, the validator's
refusals, the statistics, and the invariants as properties."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from valuechain.contract.verdict import ExecutionVariant, ValidityPolicy, VerdictDecision
from valuechain.contract.verdict_aggregate import (
    CaseTrials,
    Trial,
    VerdictAggregationError,
    aggregate_verdict,
    case_passes_needed,
    observe_trial,
    pass_at_k,
    pass_hat_k,
    trial_statistics,
    wilson_interval,
)
from valuechain.contract.vocab import IterationStatus as S

DEFAULT = ValidityPolicy.resolve()
PASS = Trial(S.COMPLETED, task_verdict="passed")
FAIL = Trial(S.COMPLETED, task_verdict="failed")
EVAL_ERROR = Trial(S.COMPLETED, evaluator_error=True)


def rate(n: int, d: int, **exclusions: int) -> dict[str, Any]:
    if d == 0:
        return {
            "state": "notMeasured",
            "value": None,
            "numerator": 0,
            "denominator": 0,
            "exclusions": exclusions,
        }
    value = n / d
    return {
        "state": "measured",
        "value": int(value) if value.is_integer() else value,
        "numerator": n,
        "denominator": d,
        "exclusions": exclusions,
    }


def wire(decision: VerdictDecision) -> dict[str, Any]:
    return json.loads(decision.to_json())  # type: ignore[no-any-return]


POLICY_WIRE = {
    "coverage": {"kind": "allConfiguredTrialsAttempted", "minGradeableTrials": 1},
    "minCompletionRate": 0.8,
    "maxEvaluatorErrorRate": 0.1,
}


def test_v1_mixed_case_passes_at_its_threshold() -> None:
    decision = aggregate_verdict([CaseTrials("a", 4, 0.5, [PASS, PASS, FAIL, FAIL])], DEFAULT)
    assert wire(decision) == {
        "verdictPolicyVersion": 2,
        "verdict": "passed",
        "reasons": ["allMeasuredCasesMetThreshold"],
        "validity": {
            "policy": POLICY_WIRE,
            "holds": True,
            "configuredTrials": 4,
            "attemptedTrials": 4,
            "eligibleTrials": 4,
            "completionRate": rate(4, 4),
            "evaluatorErrorRate": rate(0, 4),
        },
        "cases": [
            {
                "caseId": "a",
                "configuredTrials": 4,
                "attemptedTrials": 4,
                "eligibleTrials": 4,
                "passedTrials": 2,
                "failedTrials": 2,
                "effectivePassThreshold": 0.5,
                "passRate": rate(2, 4),
                "completionRate": rate(4, 4),
                "observedStability": rate(2, 4),
                "mixedVerdict": True,
                "verdict": "passed",
                "reason": "casePassRateMetThreshold",
            }
        ],
    }


def test_v2_evaluator_errors_are_inconclusive_not_failed() -> None:
    decision = aggregate_verdict([CaseTrials("a", 3, 0.5, [EVAL_ERROR] * 3)], DEFAULT)
    w = wire(decision)
    assert w["verdict"] == "inconclusive"
    assert w["reasons"] == [
        "noGradeableTrials",
        "evaluatorErrorRateAboveMaximum",
        "caseHasNoEligibleTrials",
    ]
    assert w["validity"]["holds"] is False
    assert w["validity"]["completionRate"] == rate(3, 3)
    assert w["validity"]["evaluatorErrorRate"] == rate(3, 3)
    case = w["cases"][0]
    assert (case["verdict"], case["reason"]) == ("inconclusive", "caseHasNoEligibleTrials")
    assert case["passRate"] == rate(0, 0, evaluatorError=3)
    assert case["observedStability"] == rate(0, 0, evaluatorError=3)
    assert case["completionRate"] == rate(3, 3)
    assert (case["attemptedTrials"], case["eligibleTrials"]) == (3, 0)


def test_v3_all_cancelled_measures_nothing() -> None:
    decision = aggregate_verdict([CaseTrials("a", 4, 0.5, [Trial(S.CANCELLED)] * 4)], DEFAULT)
    w = wire(decision)
    assert w["validity"]["attemptedTrials"] == 0
    assert w["validity"]["completionRate"] == rate(0, 0, cancelled=4)
    assert w["validity"]["evaluatorErrorRate"] == rate(0, 0, cancelled=4)
    assert w["reasons"] == [
        "configuredTrialsNotAttempted",
        "noGradeableTrials",
        "completionRateNotMeasured",
        "evaluatorErrorRateNotMeasured",
        "caseHasNoEligibleTrials",
    ]
    assert w["verdict"] == "inconclusive"


def test_v4_low_completion_is_inconclusive_while_the_case_passes() -> None:
    trials = [PASS] * 3 + [Trial(S.TIMED_OUT)] * 2
    w = wire(aggregate_verdict([CaseTrials("a", 5, 0.6, trials)], DEFAULT))
    assert (w["verdict"], w["reasons"]) == ("inconclusive", ["completionRateBelowMinimum"])
    assert w["validity"]["attemptedTrials"] == 5
    assert w["validity"]["completionRate"] == rate(3, 5)
    case = w["cases"][0]
    assert (case["verdict"], case["reason"]) == ("passed", "casePassRateMetThreshold")
    assert case["passRate"] == rate(3, 3, timedOut=2)
    assert case["completionRate"] == rate(3, 5)


def test_v5_one_failing_case_fails_the_run() -> None:
    cases = [CaseTrials("A", 2, 1, [PASS, PASS]), CaseTrials("B", 2, 0.75, [PASS, FAIL])]
    w = wire(aggregate_verdict(cases, DEFAULT))
    assert (w["verdict"], w["reasons"]) == ("failed", ["casePassRateBelowThreshold"])
    assert [(c["caseId"], c["verdict"], c["reason"]) for c in w["cases"]] == [
        ("A", "passed", "casePassRateMetThreshold"),
        ("B", "failed", "casePassRateBelowThreshold"),
    ]
    assert w["cases"][0]["effectivePassThreshold"] == 1


def test_v6_an_explicit_floor_replaces_the_all_attempted_rule() -> None:
    case = CaseTrials("a", 5, 1, [PASS] * 3)
    w = wire(aggregate_verdict([case], DEFAULT))
    assert (w["verdict"], w["reasons"]) == ("inconclusive", ["configuredTrialsNotAttempted"])
    assert w["validity"]["completionRate"] == rate(3, 3, notTerminal=2)
    assert w["cases"][0]["passRate"] == rate(3, 3, notTerminal=2)
    floor = ValidityPolicy.resolve(min_eligible_trials=3)
    w = wire(aggregate_verdict([case], floor))
    assert (w["verdict"], w["reasons"]) == ("passed", ["allMeasuredCasesMetThreshold"])
    assert w["validity"]["policy"]["coverage"] == {
        "kind": "minEligibleTrials",
        "minEligibleTrials": 3,
    }
    assert wire(aggregate_verdict([case], ValidityPolicy.resolve(min_eligible_trials=4)))[
        "reasons"
    ] == ["eligibleTrialsBelowMinimum"]


def test_v7_threshold_zero() -> None:
    w = wire(aggregate_verdict([CaseTrials("a", 1, 0, [FAIL])], DEFAULT))
    assert (w["verdict"], w["cases"][0]["verdict"]) == ("passed", "passed")
    w = wire(aggregate_verdict([CaseTrials("a", 1, 0, [EVAL_ERROR])], DEFAULT))
    assert (w["cases"][0]["verdict"], w["cases"][0]["reason"]) == (
        "inconclusive",
        "caseHasNoEligibleTrials",
    )
    assert w["verdict"] == "inconclusive"


@pytest.mark.parametrize(
    ("configured", "threshold", "needed"),
    [(5, 0.6, 3), (3, 0.5, 2), (4, 0, 0), (4, 1, 4), (10, 0.75, 8), (0, 0.5, 0)],
)
def test_v8_case_passes_needed(configured: int, threshold: float, needed: int) -> None:
    assert case_passes_needed(configured, threshold) == needed


@pytest.mark.parametrize(
    "cases",
    [
        [CaseTrials("a", 1, 1, [Trial(S.COMPLETED)])],  # completed, no verdict, no error
        [CaseTrials("a", 4, 1, [PASS] * 5)],  # 5 reported for 4 configured
        [CaseTrials("a", 1, 1.5, [PASS])],  # threshold outside [0,1]
        [CaseTrials("a", 1, -0.1, [PASS])],
        [CaseTrials("a", 0, 1, [])],  # configured outside 1..100
        [CaseTrials("a", 101, 1, [])],
        [CaseTrials("bad id!", 1, 1, [PASS])],  # not an opaque id
        [CaseTrials("a", 1, 1, [PASS]), CaseTrials("a", 1, 1, [PASS])],  # duplicate key
        [  # one case both variant-keyed and unkeyed
            CaseTrials("a", 1, 1, [PASS]),
            CaseTrials("a", 1, 1, [PASS], ExecutionVariant(model="m")),
        ],
        [],  # nothing to decide
    ],
)
def test_v9_refusals(cases: list[CaseTrials]) -> None:
    with pytest.raises(VerdictAggregationError):
        aggregate_verdict(cases, DEFAULT)


@pytest.mark.parametrize(
    ("status", "result", "errored", "expected"),
    [
        ("completed", "passed", False, PASS),
        ("completed", "failed", False, FAIL),
        ("completed", "passed", True, EVAL_ERROR),  # the error wins over the stored result
        ("timed_out", "failed", False, Trial(S.TIMED_OUT)),  # only completed gets a verdict
        ("running", None, False, Trial(S.RUNNING)),
    ],
)
def test_trial_observation(status: str, result: str | None, errored: bool, expected: Trial) -> None:
    assert observe_trial(status, result, errored) == expected


@pytest.mark.parametrize(
    ("status", "result"), [("completed", None), ("completed", "skipped"), ("done", None)]
)
def test_trial_observation_refusals(status: str, result: str | None) -> None:
    with pytest.raises(VerdictAggregationError):
        observe_trial(status, result, False)


@pytest.mark.parametrize(
    ("status", "reason", "attempted"),
    [
        (S.PENDING, "notTerminal", False),
        (S.RUNNING, "notTerminal", True),
        (S.SKIPPED, "skipped", False),
        (S.SETUP_FAILED, "setupFailed", True),
        (S.CANCELLED, "cancelled", False),
        (S.TIMED_OUT, "timedOut", True),
        (S.FAILED, "executionFailed", True),
    ],
)
def test_exclusion_reason_per_status(status: S, reason: str, attempted: bool) -> None:
    w = wire(aggregate_verdict([CaseTrials("a", 2, 1, [PASS, Trial(status)])], DEFAULT))
    case = w["cases"][0]
    assert case["passRate"]["exclusions"] == {reason: 1}
    assert case["attemptedTrials"] == 1 + attempted
    assert case["completionRate"]["exclusions"] == ({} if attempted else {reason: 1})


def test_variant_identity_and_round_trip() -> None:
    cases = [
        CaseTrials("a", 1, 1, [PASS], ExecutionVariant(model="m1", provider="p")),
        CaseTrials("a", 1, 1, [FAIL], ExecutionVariant(model="m2")),
    ]
    decision = aggregate_verdict(cases, DEFAULT)
    w = wire(decision)
    assert [c["executionVariant"] for c in w["cases"]] == [
        {"model": "m1", "provider": "p"},
        {"model": "m2"},
    ]
    assert w["verdict"] == "failed"
    assert VerdictDecision.model_validate_json(decision.to_json()) == decision


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("cases", 0, "passRate", "value"), 0.51),  # not the exact quotient
        (("validity", "holds"), False),
        (("reasons",), ["casePassRateMetThreshold"]),
        (("verdict",), "failed"),
        (("validity", "configuredTrials"), 5),
        (("cases", 0, "mixedVerdict"), False),
        (("cases", 0, "verdict"), "failed"),
        (("verdictPolicyVersion",), 1),
    ],
)
def test_the_validator_refuses_any_mismatch(path: tuple[Any, ...], value: Any) -> None:
    w = wire(aggregate_verdict([CaseTrials("a", 4, 0.5, [PASS, PASS, FAIL, FAIL])], DEFAULT))
    target = w
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValidationError):
        VerdictDecision.model_validate_json(json.dumps(w))


def test_reasons_are_refused_out_of_order() -> None:
    w = wire(aggregate_verdict([CaseTrials("a", 3, 0.5, [EVAL_ERROR] * 3)], DEFAULT))
    w["reasons"] = list(reversed(w["reasons"]))
    with pytest.raises(ValidationError):
        VerdictDecision.model_validate_json(json.dumps(w))


# --- §6.5 statistics ----------------------------------------------------------------------


def test_pass_at_k_worked_values() -> None:
    assert pass_at_k(5, 3, 2) == 0.9
    assert pass_hat_k(5, 3, 2) == 0.3
    assert pass_at_k(5, 4, 2) == 1.0  # k > n − c: exactly 1
    assert pass_hat_k(5, 1, 2) == 0.0  # k > c: exactly 0
    assert pass_at_k(5, 3, 0) is None
    assert pass_at_k(5, 3, 6) is None
    for bad in ((5, 6, 1), (-1, 0, 1), (5, 3, 1.5)):
        with pytest.raises(ValueError):
            pass_at_k(*bad)


def test_wilson_interval() -> None:
    assert wilson_interval(0, 0) is None
    assert wilson_interval(0, 4)[0] == 0.0  # type: ignore[index]
    assert wilson_interval(4, 4)[1] == 1.0  # type: ignore[index]
    low, high = wilson_interval(1, 2)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (0.0945, 0.9055)


def test_trial_statistics_of_a_case() -> None:
    decision = aggregate_verdict(
        [CaseTrials("a", 4, 0.5, [PASS, PASS, FAIL, FAIL]), CaseTrials("b", 1, 1, [EVAL_ERROR])],
        DEFAULT,
    )
    mixed, empty = (trial_statistics(c) for c in decision.cases)
    assert (mixed.n, mixed.c, mixed.k, mixed.pass_at_k, mixed.pass_hat_k) == (4, 2, 4, 1.0, 0.0)
    assert (mixed.unit, mixed.confidence) == ("caseVariant", 0.95)
    assert (empty.k, empty.pass_at_k, empty.pass_hat_k, empty.pass_rate_interval) == (
        0,
        None,
        None,
        None,
    )


# --- properties ---------------------------------------------------------------------------

TRIALS = st.sampled_from([PASS, FAIL, EVAL_ERROR, *(Trial(s) for s in S if s is not S.COMPLETED)])


@st.composite
def runs(draw: st.DrawFn) -> list[CaseTrials]:
    cases = []
    for i in range(draw(st.integers(1, 4))):
        configured = draw(st.integers(1, 6))
        trials = draw(st.lists(TRIALS, max_size=configured))
        threshold = draw(st.sampled_from([0, 0.25, 0.5, 0.75, 1]))
        cases.append(CaseTrials(f"c{i}", configured, threshold, trials))
    return cases


@settings(max_examples=150, deadline=None)
@given(runs(), st.one_of(st.none(), st.integers(1, 10)))
def test_properties_of_every_decision(cases: list[CaseTrials], floor: int | None) -> None:
    decision = aggregate_verdict(cases, ValidityPolicy.resolve(min_eligible_trials=floor))
    v = decision.validity
    # Nothing gradeable is inconclusive, never failed.
    if v.eligible_trials == 0:
        assert decision.verdict == "inconclusive"
    # Validity findings come first and force inconclusive; task reasons only otherwise.
    task = {
        "casePassRateMetThreshold",
        "casePassRateBelowThreshold",
        "allMeasuredCasesMetThreshold",
    }
    reasons = {r.value for r in decision.reasons}
    assert (decision.verdict == "inconclusive") == (not v.holds) == (not reasons & task)
    # Every rate is an envelope: 0/0 is notMeasured, never a number.
    for r in (v.completion_rate, v.evaluator_error_rate):
        assert (r.state == "notMeasured") == (r.denominator == 0)
        assert r.value is None or r.value == r.numerator / r.denominator
    # Every trial is accounted for in each case's pass-rate denominator or its exclusions.
    for case in decision.cases:
        excluded = sum(case.pass_rate.exclusions.counts().values())
        assert case.eligible_trials + excluded == case.configured_trials
    assert VerdictDecision.model_validate_json(decision.to_json()) == decision
