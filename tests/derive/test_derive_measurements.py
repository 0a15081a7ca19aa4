"""CONTRACT §4: reach projection and upgrade, evidence-span-union latency."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from derive_notation import CASE, SPAN, TURN

from valuechain.contract.chain import (
    StageEvidenceRefs,
    StageMeasurementRow,
    StageMeasurements,
    StageResult,
)
from valuechain.contract.derivation import (
    JudgeEvidence,
    StageDerivationInput,
    StageEvidence,
    StageSpan,
)
from valuechain.contract.vocab import Reach, Stage, StageReason, StageState
from valuechain.derive import (
    derive_chain,
    derive_measurements,
    reach_for_state,
    reach_is_consistent_with_state,
    stage_measurement_disagreements,
)
from valuechain.derive.measurements import union_duration_ms


def timed(span_id: str, start: float | None, end: float | None, **kw: object) -> StageSpan:
    return StageSpan(id=span_id, category="tool", status="ok", started_at=start, ended_at=end, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("state", "reach"),
    [
        (StageState.PASSED, Reach.REACHED),
        (StageState.FAILED, Reach.REACHED),
        (StageState.NOT_REACHED, Reach.NOT_REACHED),
        (StageState.NOT_APPLICABLE, Reach.NOT_APPLICABLE),
        (StageState.NOT_MEASURED, Reach.UNKNOWN),
    ],
)
def test_reach_projection(state: StageState, reach: Reach) -> None:
    assert reach_for_state(state) is reach
    admitted = {r for r in Reach if reach_is_consistent_with_state(state, r)}
    assert admitted == (
        {Reach.UNKNOWN, Reach.REACHED} if state is StageState.NOT_MEASURED else {reach}
    )


def test_chain_of_example_1_with_timings() -> None:
    spans = (timed("s1", 1000, 1250), timed("s2", 1100, 1300), timed("s3", 2000, 2000))
    inp = StageDerivationInput(CASE, StageEvidence(spans=spans, prompts=(TURN,)))
    chain = derive_chain(inp)
    measurements = derive_measurements(chain, spans)
    assert measurements.to_wire() == {
        "schemaVersion": 1,
        "stageAnalyzerVersion": 12,
        "rows": [
            {"stage": "connection", "reach": "reached"},  # setup timing is run-level
            {"stage": "discovery", "reach": "reached"},
            {"stage": "selection", "reach": "reached"},  # cites no spans ⇒ no latency
            # union of [1000,1250] ∪ [1100,1300] ∪ [2000,2000]: overlap once, zero kept
            {
                "stage": "call",
                "reach": "reached",
                "latency": {"unit": "ms", "basis": "evidence_span_union", "value": 300},
            },
            {
                "stage": "response",
                "reach": "reached",
                "latency": {"unit": "ms", "basis": "evidence_span_union", "value": 300},
            },
            {"stage": "userValue", "reach": "unknown"},  # notMeasured, no cited span
        ],
    }
    assert stage_measurement_disagreements(measurements, chain.stage_results, 12) == []


def test_not_measured_row_citing_a_known_span_is_reached() -> None:
    """The upgrade that makes measurement coverage < 1 possible (§4)."""
    rows = [
        StageResult(stage, StageState.PASSED, StageReason.OBSERVED) for stage in list(Stage)[:5]
    ] + [
        StageResult(
            Stage.USER_VALUE,
            StageState.NOT_MEASURED,
            StageReason.JUDGE_PENDING,
            StageEvidenceRefs(span_ids=("s", "unknown-id")),
        )
    ]
    measured = derive_measurements(rows, [timed("s", 0, 5)], stage_analyzer_version=11)
    assert measured.rows[-1] == StageMeasurementRow(Stage.USER_VALUE, Reach.REACHED)  # no latency
    assert measured.stage_analyzer_version == 11
    unresolved = derive_measurements(rows, [timed("other", 0, 5)])
    assert unresolved.rows[-1].reach is Reach.UNKNOWN


def test_selection_with_matchverdict_span_evidence_gets_latency() -> None:
    inp = StageDerivationInput(
        replace(CASE, expects_tool_call=None, tool_expectation="open"),
        StageEvidence(spans=(timed("s1", 10, 40),)),
    )
    chain = derive_chain(inp)
    assert chain.stage_results[2].reason == "matchVerdictUnavailable"
    row = derive_measurements(chain, inp.evidence.spans).rows[2]
    assert row.reach is Reach.REACHED and row.latency is not None and row.latency.value == 30


@pytest.mark.parametrize(
    ("start", "end"),
    [(None, 5), (5, None), (5, 4), (math.nan, 5), (0, math.inf), (True, 5)],
)
def test_unusable_intervals_give_no_latency_never_zero(start: object, end: object) -> None:
    span = timed("s1", start, end)  # type: ignore[arg-type]
    chain = derive_chain(StageDerivationInput(CASE, StageEvidence(spans=(span,), prompts=(TURN,))))
    rows = derive_measurements(chain, [span]).rows
    assert rows[3].reach is Reach.REACHED and rows[3].latency is None


def test_missing_stage_is_unknown_and_latency_needs_reach() -> None:
    failing = StageResult(Stage.CALL, StageState.NOT_REACHED, StageReason.EARLIER_STAGE_FAILED)
    measured = derive_measurements([failing], [timed("s1", 0, 9)])
    assert [row.reach for row in measured.rows] == [
        Reach.UNKNOWN,
        Reach.UNKNOWN,
        Reach.UNKNOWN,
        Reach.NOT_REACHED,
        Reach.UNKNOWN,
        Reach.UNKNOWN,
    ]


def test_union_duration() -> None:
    assert union_duration_ms([]) == 0
    assert union_duration_ms([(0, 10), (10, 20)]) == 20  # adjacent merges
    assert union_duration_ms([(5, 6), (0, 10), (20, 25)]) == 15
    assert union_duration_ms([(3, 3)]) == 0


def test_disagreements() -> None:
    chain = derive_chain(
        StageDerivationInput(
            CASE, StageEvidence(spans=(SPAN,), judge_evidence=JudgeEvidence("pending"))
        )
    )
    good = derive_measurements(chain)
    assert stage_measurement_disagreements(good, chain.stage_results, 12) == []
    assert stage_measurement_disagreements(good, chain.stage_results, 11) == [
        "stageAnalyzerVersion 12 does not match the chain's 11"
    ]
    bad_reach = replace(
        good,
        rows=(*good.rows[:5], StageMeasurementRow(Stage.USER_VALUE, Reach.NOT_REACHED)),
    )
    assert stage_measurement_disagreements(bad_reach, chain.stage_results, 12) == [
        "stage 'userValue' reports reach 'notReached', which state 'notMeasured' does not admit"
    ]
    swapped = StageMeasurements((good.rows[1], good.rows[0], *good.rows[2:]), 12)
    assert stage_measurement_disagreements(swapped, chain.stage_results, 12) == [
        "stage 'connection' is out of order",
        "stage 'discovery' is out of order",
    ]
    short = StageMeasurements(good.rows[:5], 12)
    assert stage_measurement_disagreements(short, chain.stage_results, 12) == [
        "stage 'userValue' is missing from one of the two payloads"
    ]
