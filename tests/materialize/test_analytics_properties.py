"""Property tests of the SQL path (STYLE.md habit 8).

- the stored document equals the independent Python oracle (`reference.aggregate`) byte for
  byte, for arbitrary trials, chains, measurements, slice attributes and setup copies;
- it does not depend on the order trials were written in;
- §5.3 tally invariants, included + excluded = total, and no rate is a number on a zero
  denominator (in the model's rates and in the `stage_rates` view);
- slice caps hold and every cap that bites is recorded.
"""

from __future__ import annotations

import json
import random
from typing import Any

from analytics_store import T0, Funnels, SetupCopy, TrialSpec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import aggregate, canonical

from valuechain.contract.documents import MAX_INTENT_SLICES, StageAnalyticsV1
from valuechain.contract.rates import measured_pass_rate, measurement_coverage_rate, reach_rate
from valuechain.contract.vocab import FailureCategory, StageReason

SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

T0_MS = int(T0.timestamp() * 1000)
CODES = ("P", "F", "NM", "NR", "NA")
REASONS = [r.value for r in StageReason]


@st.composite
def chains(draw: st.DrawFn) -> str | None:
    if draw(st.integers(0, 9)) == 0:
        return None
    rows = []
    for _ in range(draw(st.sampled_from([6, 6, 6, 6, 4]))):
        code = draw(st.sampled_from(CODES))
        reason = draw(st.one_of(st.just(""), st.sampled_from(REASONS)))
        rows.append(f"{code}:{reason}" if reason else code)
    return ",".join(rows)


@st.composite
def trial_specs(draw: st.DrawFn, index: int, run: dict[str, Any]) -> TrialSpec:
    chain = draw(chains())
    return TrialSpec(
        f"t{index}",
        status=draw(
            st.sampled_from(
                ["completed"] * 6 + ["failed", "cancelled", "pending", "timed_out", "skipped", None]
            )
        ),
        chain=chain,
        outcome=draw(st.sampled_from([True] * 8 + [False])),
        chain_verified=draw(st.sampled_from([True] * 8 + [None, False])),
        measurements=draw(st.sampled_from([True] * 8 + [False])),
        measurements_verified=draw(st.sampled_from([True] * 8 + [None, False])),
        measurements_schema=draw(st.sampled_from([1] * 12 + [2])),
        measurements_analyzer=draw(st.sampled_from([None] * 12 + [11])),
        reach=draw(
            st.dictionaries(
                st.integers(0, 5),
                st.sampled_from(["reached", "unknown", "notReached", "notApplicable", "weird"]),
                max_size=3,
            )
        ),
        latency=draw(
            st.dictionaries(st.integers(0, 5), st.integers(-1, 2000).map(float), max_size=4)
        ),
        measurement_stage=draw(
            st.dictionaries(st.integers(0, 5), st.sampled_from(["selection", "call"]), max_size=1)
        ),
        failure_category=draw(st.sampled_from([None, *(c.value for c in FailureCategory)])),
        evaluator_errored=draw(st.sampled_from([None] * 6 + [False, True])),
        exclusion_class=draw(st.sampled_from([None] * 12 + ["integrity", "version"])),
        intent=draw(
            st.sampled_from(
                [
                    None,
                    "",
                    "  ",
                    "search",
                    " search\u00a0",
                    "\ufeffb",
                    "é",
                    "😀",
                    "\ue000",
                    "Search",
                ]
            )
        ),
        provider=draw(st.sampled_from([None, "", "anthropic", "a b", "a"])),
        model=draw(st.sampled_from([None, "", "m", "c", "b c"])),
        host_key=draw(st.sampled_from([None, "", "h1", "h2"])),
        host_name=draw(st.sampled_from([None, "", "One", "Two"])),
        execution_engine=draw(st.sampled_from([None, "emulated", "harness:x"])),
        iteration=draw(st.sampled_from([None, 0, 1, 2])),
        **run,
    )


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[TrialSpec], list[SetupCopy], dict[str, Any]]:
    run = {
        "run_status": draw(st.sampled_from(["completed", "completed", "running", None])),
        "materialization_state": draw(st.sampled_from([None, None, "final", "provisional"])),
        "run_group_id": draw(st.sampled_from(["g", None])),
    }
    n = draw(st.integers(1, 8))
    trials = [draw(trial_specs(i, run)) for i in range(n)]
    setup = draw(
        st.lists(
            st.builds(
                SetupCopy,
                trial_id=st.sampled_from([t.trial_id for t in trials]),
                phase=st.sampled_from(["connection", "discovery", "other"]),
                outcome=st.sampled_from(["ok", "failed"]),
                attribution=st.sampled_from([None, "theirs", "ours"]),
                egress_verified=st.sampled_from([None, True, False]),
                duration_ms=st.sampled_from([None, 100.0, 250.0, -5.0]),
            ),
            max_size=5,
        )
    )
    return trials, setup, run


def materialized(funnels: Funnels, trials: list[TrialSpec], setup: list[SetupCopy]) -> str:
    funnels.reset().add(*trials).setup(*setup).materialize()
    return funnels.text()


@SETTINGS
@given(runs(), st.randoms(use_true_random=False))
def test_sql_equals_the_oracle_in_any_order_and_keeps_the_invariants(
    _store: Funnels,
    case: tuple[list[TrialSpec], list[SetupCopy], dict[str, Any]],
    rnd: random.Random,
) -> None:
    trials, setup, run = case
    text = materialized(_store, trials, setup)
    doc = StageAnalyticsV1.from_json(text)
    assert doc.to_json() == text  # canonical
    expected = aggregate(
        trials, setup, run_completed_at=T0_MS, materialization_state=run["materialization_state"]
    )
    assert text == canonical(expected)
    _check_invariants(_store, doc, len(trials))

    shuffled, copies = trials[:], setup[:]
    rnd.shuffle(shuffled)
    rnd.shuffle(copies)
    assert materialized(_store, shuffled, copies) == text


def _check_invariants(funnels: Funnels, doc: StageAnalyticsV1, trials: int) -> None:
    """§5.3 arithmetic, included + excluded = total, 0/0 never a number (model and view)."""
    assert doc.included_trials + doc.excluded_trials.total() == doc.total_trials == trials
    for row in doc.slices:
        assert row.included_trials + row.excluded_trials.total() <= trials
        for t in row.stages:
            assert t.passed + t.failed == t.measured
            assert t.measured + t.not_measured == t.reached
            assert t.reached + t.not_reached + t.reach_unknown == t.applicable
            for rate, denominator in (
                (measured_pass_rate(t), t.measured),
                (reach_rate(t), t.reached + t.not_reached),
                (measurement_coverage_rate(t), t.reached),
            ):
                assert (rate.value is None) == (denominator == 0)
    bad = funnels.con.execute("""SELECT count(*) FROM stage_rates WHERE
        (measured = 0) <> (measured_pass_rate IS NULL)
        OR (reached + not_reached = 0) <> (reach_rate IS NULL)
        OR (reached = 0) <> (measurement_coverage_rate IS NULL)
        OR (measured_pass_rate IS NULL AND (measured_pass_rate_state <> 'notMeasured'
            OR measured_pass_rate_denominator <> 0 OR measured_pass_rate_numerator <> 0))
        OR (reach_rate IS NULL) <> (reach_rate_state = 'notMeasured')""").fetchall()
    assert bad == [(0,)]


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.integers(1, 3), min_size=40, max_size=62))
def test_caps_hold_and_truncation_is_recorded(_store: Funnels, sizes: list[int]) -> None:
    trials = [
        TrialSpec(f"t{i}-{k}", intent=f"intent {i:02d}")
        for i, size in enumerate(sizes)
        for k in range(size)
    ]
    doc = json.loads(materialized(_store, trials, []))
    intents = [s for s in doc["slices"] if s["slice"]["dimension"] == "intent"]
    assert len(intents) == min(len(sizes), MAX_INTENT_SLICES)
    if len(sizes) > MAX_INTENT_SLICES:
        assert doc["sliceTruncation"] == [
            {"dimension": "intent", "distinctValues": len(sizes), "retained": MAX_INTENT_SLICES}
        ]
        ranked = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))[:MAX_INTENT_SLICES]
        assert [s["slice"]["intent"] for s in intents] == [
            f"intent {i:02d}" for i in sorted(ranked)
        ]
    else:
        assert "sliceTruncation" not in doc
    assert doc == json.loads(canonical(aggregate(trials, run_completed_at=T0_MS)))
