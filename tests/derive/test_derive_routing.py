"""CONTRACT §2.5 / §3.2 / §3.3: which stage consumes a predicate row."""

from __future__ import annotations

import pytest
from derive_notation import CASE, SPAN, TURN, parse_chain

from valuechain.contract.derivation import (
    PredicateRef,
    PredicateResult,
    StageDerivationInput,
    StageEvidence,
)
from valuechain.contract.vocab import Stage
from valuechain.derive import derive_chain
from valuechain.derive.routing import (
    JS_OBJECT_PROTOTYPE_MEMBERS,
    KIND_TABLE,
    is_gating_and_scored,
    routed_stage,
)

S1 = "P:implied…{[s1]}"
HEAD = f"{S1}, {S1}, P:observed, P:observed{{[s1]}}, P:observed{{[s1]}}"


def chain_with(*rows: PredicateResult) -> list[dict[str, object]]:
    evidence = StageEvidence(spans=(SPAN,), prompts=(TURN,), predicate_results=rows)
    return derive_chain(StageDerivationInput(CASE, evidence)).to_wire()["stageResults"]  # type: ignore[return-value]


def test_link_counts_per_analyzer() -> None:
    """§3.3: 0/6/9/3/8/10 at 12 (36 kinds); 0/0/9/2/7/9 at 11 (27 kinds)."""
    for column, expected in ((1, [0, 6, 9, 3, 8, 10]), (2, [0, 0, 9, 2, 7, 9])):
        counts = [sum(1 for row in KIND_TABLE if row[column] is stage) for stage in Stage]
        assert counts == expected


@pytest.mark.parametrize(
    ("kind", "at12", "at11"),
    [
        ("toolCalledAtLeastOnce", Stage.SELECTION, Stage.SELECTION),
        ("toolCalledWith", Stage.USER_VALUE, Stage.USER_VALUE),  # matcher-graded, not routed
        ("noToolErrors", Stage.RESPONSE, Stage.RESPONSE),
        ("toolResultMatches", Stage.RESPONSE, Stage.USER_VALUE),
        ("toolInputMatches", Stage.CALL, Stage.USER_VALUE),
        ("toolNamesUnique", Stage.DISCOVERY, Stage.USER_VALUE),
        ("responseCloseTo", Stage.USER_VALUE, Stage.USER_VALUE),
        ("someFutureKind", Stage.USER_VALUE, Stage.USER_VALUE),
        (None, Stage.USER_VALUE, Stage.USER_VALUE),
        ("toString", Stage.SELECTION, Stage.SELECTION),  # the JS `in` quirk
    ],
)
def test_routed_stage(kind: str | None, at12: Stage, at11: Stage) -> None:
    assert (routed_stage(kind, 12), routed_stage(kind, 11)) == (at12, at11)


@pytest.mark.parametrize(
    ("row", "gating"),
    [
        (PredicateResult(False), True),
        (PredicateResult(False, predicate=PredicateRef("x", role="gating")), True),
        (PredicateResult(False, predicate=PredicateRef("x", role="Advisory")), True),  # exact only
        (PredicateResult(False, predicate=PredicateRef("x", role="required")), True),
        (PredicateResult(False, predicate=PredicateRef("x", role="advisory")), False),
        (PredicateResult(False, status="error"), False),
        (PredicateResult(False, status="scored"), True),
    ],
)
def test_gating_and_scored(row: PredicateResult, gating: bool) -> None:
    assert is_gating_and_scored(row) is gating


def test_absent_passed_is_not_a_failure() -> None:
    assert chain_with(PredicateResult(passed=None, reason="?")) == parse_chain(
        f"{HEAD}, P:observed"
    )


@pytest.mark.parametrize("kind", sorted(JS_OBJECT_PROTOTYPE_MEMBERS))
def test_object_prototype_kinds_are_consumed_by_selection(kind: str) -> None:
    """§2.5 parity detail: `kind in {…}` is true for inherited Object.prototype members."""
    row = PredicateResult(False, "garbage", predicate=PredicateRef(kind))
    assert chain_with(row) == parse_chain(
        f'{S1}, {S1}, F:unexpectedToolCall{{predicateReasons:["garbage"]}}, '
        "P:observed{[s1]}, P:observed{[s1]}, NR"
    )


def test_selection_rows_are_withheld_from_user_value() -> None:
    """A passing selection row alone leaves userValue with nothing to grade."""
    row = PredicateResult(True, "fine", predicate=PredicateRef("toolNeverCalled"))
    assert chain_with(row) == parse_chain(f"{HEAD}, NM:noEvidenceCaptured")
