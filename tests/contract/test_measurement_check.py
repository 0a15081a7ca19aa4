"""`measurement_problems` (CONTRACT §4, §7.4): the §4 validator on persisted measurements and
`stageMeasurementDisagreements` against their chain, as the producer check and the store
migration run it. One table of agreeing and disagreeing measurements (each kind), and two
properties: what valuechain derives always agrees; any reach a state does not admit is found."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from valuechain.contract.chain import StageResult
from valuechain.contract.measurements import (
    LATENCY_ELIGIBLE_STAGES,
    check_persisted,
    measurement_problems,
    measurements_wire,
    reach_is_consistent_with_state,
)
from valuechain.contract.vocab import Reach, StageState
from valuechain.contract.vocab_rules import STAGES
from valuechain.derive import derive_measurements

P, F, NR, NM, NA = (
    StageState.PASSED,
    StageState.FAILED,
    StageState.NOT_REACHED,
    StageState.NOT_MEASURED,
    StageState.NOT_APPLICABLE,
)
CHAIN = tuple(StageResult(s, state) for s, state in zip(STAGES, (P, P, P, F, NR, NA), strict=True))
# index → (reach, latency ms): what the chain above admits, call with a latency
GOOD = {0: ("reached", None), 1: ("reached", None), 2: ("reached", None), 3: ("reached", 12.0)}
GOOD |= {4: ("notReached", None), 5: ("notApplicable", None)}


def wire(changes: dict[int, tuple[Any, Any]] | None = None, **top: Any) -> dict[str, object]:
    rows = {**GOOD, **(changes or {})}
    out = measurements_wire(((i, r, ms) for i, (r, ms) in rows.items()), 1, 12)
    return out | top


def swapped(rows: object) -> list[object]:
    """The first two rows in each other's place."""
    assert isinstance(rows, list)
    return [rows[1], rows[0], *rows[2:]]


CASES: dict[str, tuple[dict[str, object], list[str]]] = {
    "agreeing": (wire(), []),
    "agreeing without the latency": (wire({3: ("reached", None)}), []),
    "a reach the state does not admit": (
        wire({1: ("notReached", None)}),
        ["stage 'discovery' reports reach 'notReached', which state 'passed' does not admit"],
    ),
    "an unknown reach": (
        wire({2: ("sideways", None)}),
        ["stage 'selection' reports an unknown reach 'sideways'"],
    ),
    "a row missing": (wire({5: (None, None)}), ["stage 'userValue' has no reach"]),
    "a seventh row": (wire({6: ("reached", None)}), ["7 rows, not 6"]),
    "a latency on an ineligible stage": (
        wire({0: ("reached", 3.0)}),
        ["stage 'connection' carries a latency (only selection, call and response may)"],
    ),
    "a latency on a stage not reached": (
        wire({4: ("notReached", 3.0)}),
        ["stage 'response' carries a latency with reach 'notReached' (only when reached)"],
    ),
    "another analyzer version": (
        wire(stageAnalyzerVersion=11),
        ["stageAnalyzerVersion 11 does not match the chain's 12"],
    ),
    "no schema version": (wire(schemaVersion=None), ["schemaVersion None is not 1"]),
    "no rows": ({"schemaVersion": 1, "stageAnalyzerVersion": 12}, ["no rows"]),
    "rows out of order": (
        wire() | {"rows": swapped(wire()["rows"])},
        [
            "the row for stage 'connection' names 'discovery' (out of order)",
            "the row for stage 'discovery' names 'connection' (out of order)",
        ],
    ),
}


@pytest.mark.parametrize(("measurements", "problems"), CASES.values(), ids=CASES.keys())
def test_measurement_problems(measurements: dict[str, object], problems: list[str]) -> None:
    assert measurement_problems(measurements, CHAIN, 12) == problems


def test_a_not_measured_row_admits_unknown_and_reached() -> None:
    chain = (*CHAIN[:5], StageResult(STAGES[5], NM))
    for reach in ("unknown", "reached"):
        assert measurement_problems(wire({5: (reach, None)}), chain, 12) == []
    assert measurement_problems(wire({5: ("notReached", None)}), chain, 12) != []


STATES = st.lists(st.sampled_from(list(StageState)), min_size=6, max_size=6)


@given(STATES)
def test_what_valuechain_derives_always_agrees(states: list[StageState]) -> None:
    chain = tuple(StageResult(s, state) for s, state in zip(STAGES, states, strict=True))
    derived = derive_measurements(chain, stage_analyzer_version=12)
    rows = [
        (i, r.reach.value, None if r.latency is None else float(r.latency.value))
        for i, r in enumerate(derived.rows)
    ]
    assert measurement_problems(measurements_wire(rows, 1, 12), chain, 12) == []


@given(STATES, st.integers(0, 5), st.sampled_from(list(Reach)))
def test_any_reach_the_state_does_not_admit_is_found(
    states: list[StageState], index: int, reach: Reach
) -> None:
    chain = tuple(StageResult(s, state) for s, state in zip(STAGES, states, strict=True))
    derived = derive_measurements(chain, stage_analyzer_version=12)
    rows = [(i, r.reach.value, None) for i, r in enumerate(derived.rows)]
    rows[index] = (index, reach.value, None)
    problems = measurement_problems(measurements_wire(rows, 1, 12), chain, 12)
    assert (problems == []) is reach_is_consistent_with_state(states[index], reach)


def test_latency_is_eligible_on_selection_call_and_response_only() -> None:
    assert sorted(s.value for s in LATENCY_ELIGIBLE_STAGES) == ["call", "response", "selection"]


ROWS = [(s.value, "passed", "observed", None) for s in STAGES]
SENT = [(i, "reached", None) for i in range(6)]


@pytest.mark.parametrize(
    ("chain", "outcome", "sent", "schema", "expected"),
    [
        (ROWS, (12, None, None), SENT, 1, (True, [])),
        (
            ROWS,
            (12, None, None),
            [(0, "notReached", None), *SENT[1:]],
            1,
            (
                True,
                [
                    "stage 'connection' reports reach 'notReached', which state 'passed' does not "
                    "admit"
                ],
            ),
        ),
        (ROWS[::-1], (12, None, None), SENT, 1, (False, None)),  # the chain fails §2.1
        (ROWS, (12, "call", None), SENT, 1, (False, None)),  # a first failed stage, none failed
        (ROWS, (12, None, None), None, None, (True, None)),  # no measurements sent
        (ROWS, (13, None, None), SENT, 1, (True, None)),  # a chain ahead: never read
        (ROWS, (12, None, None), SENT, 2, (True, None)),  # measurements ahead: never read
        (
            [*ROWS[:3], (STAGES[3].value, "passed", None, "{oops"), *ROWS[4:]],  # not JSON
            (12, None, None),
            SENT,
            1,
            (False, None),
        ),
    ],
)
def test_check_persisted(
    chain: list[tuple[str, str, str | None, str | None]],
    outcome: tuple[int, str | None, str | None],
    sent: list[tuple[int, str, float | None]] | None,
    schema: int | None,
    expected: tuple[bool, list[str] | None],
) -> None:
    assert check_persisted(chain, outcome, sent, schema) == expected
