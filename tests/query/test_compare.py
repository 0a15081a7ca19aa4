"""`compare`: parity blockers first, deltas only when comparable, one change per case.

The case rules are pinned as a table on `case_change`; the rest runs on synthetic runs of one
suite imported into one store (`compare_runs`): a comparable pair showing every change kind,
an identical twin, a failing twin, a twin whose trials were all cancelled (every rate
notMeasured), and twins blocked by parity.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from compare_runs import EVERY_CHANGE, CaseEdit, every_change_runs, import_runs, run_requests

import valuechain
from valuechain.api import Store
from valuechain.contract.compare import CaseChange, CaseVerdict, RunComparison
from valuechain.contract.vocab import ParityBlocker
from valuechain.errors import UsageError
from valuechain.query.compare import CaseSide, case_change, regression
from valuechain.query.statements import query_rows

P, F, U = CaseVerdict.PASSED, CaseVerdict.FAILED, CaseVerdict.INCONCLUSIVE
C = CaseChange
ALL_CANCELLED = {case: CaseEdit(status="cancelled") for case in range(8)}
NO_GROUP = {"mcp.app.run.group_id": None}


def side(verdict: CaseVerdict, variants: tuple[str, ...] = ("p/m",), *hashes: str) -> CaseSide:
    return CaseSide("c", "t", verdict, 10, 1.0, tuple(hashes), variants)


@pytest.mark.parametrize(
    ("a", "b", "change"),
    [
        (side(P), side(P), C.PASSED),
        (side(F), side(F), C.STILL_FAILING),
        (side(P), side(F), C.REGRESSED),
        (side(F), side(P), C.FIXED),
        (None, side(F), C.NEW),
        (side(P), None, C.REMOVED),
        (side(P, ("p/m",), "h1"), side(F, ("p/m",), "h2"), C.CHANGED),
        (side(P), side(F, ("p/m", "q/n")), C.CHANGED),  # another set of variants
        (side(P, ("p/m",), "h1"), side(F), C.REGRESSED),  # one hash alone says nothing
        (side(P, ("p/m",), "h1"), side(U, ("p/m",), "h1"), C.INCONCLUSIVE),
        (side(U), side(P), C.INCONCLUSIVE),
        (side(F), side(U), C.INCONCLUSIVE),
        (side(U, ("p/m",), "h1"), side(U, ("p/m",), "h2"), C.CHANGED),
    ],
)
def test_case_change_rules(a: CaseSide | None, b: CaseSide | None, change: CaseChange) -> None:
    assert case_change(a, b) is change


def test_the_rules_cover_every_change_kind() -> None:
    assert set(EVERY_CHANGE) == {c.value for c in CaseChange}


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compare") / "compare.duckdb"
    import_runs(
        path,
        {
            **every_change_runs(),
            "run-same": run_requests("run-same"),
            "run-twin": run_requests("run-twin"),
            "run-worse": run_requests("run-worse", failures=True),
            "run-cancelled": run_requests("run-cancelled", ALL_CANCELLED),
            "run-lonely": run_requests("run-lonely", run_keys=NO_GROUP),
            "run-alone": run_requests("run-alone", run_keys=NO_GROUP),
            "run-draft": run_requests(
                "run-draft", run_keys={"mcp.app.run.materialization_state": "provisional"}
            ),
            "run-threshold": run_requests(
                "run-threshold",
                {
                    0: CaseEdit(results=("passed", "failed"), threshold=0.5),
                    1: CaseEdit(results=("passed", "failed")),
                    2: CaseEdit(results=("passed", "passed"), threshold=1.0),
                    3: CaseEdit(results=("failed", "failed"), threshold=0.0),
                },
            ),
        },
    )
    return path


@pytest.fixture(scope="module")
def store(store_path: Path) -> Iterator[Store]:
    with valuechain.open(store_path, read_only=True) as opened:
        yield opened


def test_every_change_kind(store: Store) -> None:
    comparison = store.compare("run-before", "run-after")
    assert comparison.comparable and comparison.blockers == [] and not comparison.forced
    assert comparison.cases is not None
    assert sorted(c.change.value for c in comparison.cases) == sorted(EVERY_CHANGE)
    by_change = {c.change: c for c in comparison.cases}
    assert (by_change[C.NEW].a, by_change[C.NEW].b) == (None, P)
    assert (by_change[C.REMOVED].a, by_change[C.REMOVED].b) == (P, None)
    assert by_change[C.NEW].tokens_delta is None and by_change[C.REMOVED].duration_ms_delta is None
    assert (by_change[C.INCONCLUSIVE].a, by_change[C.INCONCLUSIVE].b) == (P, U)
    cases = [f for f in regression(comparison) if f.startswith("case ")]
    assert cases == [f"case {by_change[C.REGRESSED].case_id} regressed"]


def test_identical_runs_are_comparable_and_unchanged(store: Store) -> None:
    for a, b in (("run-same", "run-same"), ("run-same", "run-twin")):
        comparison = store.compare(a, b)
        assert comparison.comparable and comparison.blockers == []
        assert len(comparison.stages) == 6
        for row in comparison.stages:
            assert row.delta is not None and row.a == row.b
            assert {row.delta.measured_pass_rate, row.delta.reach_rate} <= {0.0, None}
        assert comparison.cases is not None and len(comparison.cases) == 8
        assert {c.change for c in comparison.cases} <= {C.PASSED, C.STILL_FAILING}
        assert regression(comparison) == []


def test_a_worse_twin_regresses_cases_and_stage_pass_rates(store: Store) -> None:
    comparison = store.compare("run-same", "run-worse")
    found = regression(comparison)
    assert any(f.startswith("case ") for f in found)
    assert any(f.endswith("measured pass rate fell") for f in found)
    fell = [r for r in comparison.stages if r.delta and (r.delta.measured_pass_rate or 0) < 0]
    assert fell and all(f"{r.stage} measured pass rate fell" in found for r in fell)
    assert regression(store.compare("run-worse", "run-same")) == []  # B got better


def test_not_measured_gives_a_null_delta_never_a_number(store: Store) -> None:
    comparison = store.compare("run-same", "run-cancelled")
    assert comparison.comparable
    for row in comparison.stages:
        assert row.a.measured_pass_rate.state == "measured"
        assert row.b.measured_pass_rate.state == "notMeasured"
        assert row.delta is not None
        assert row.delta.measured_pass_rate is None and row.delta.reach_rate is None
        assert row.delta.measurement_coverage_rate is None
    assert comparison.cases is not None
    assert {c.change for c in comparison.cases} == {C.INCONCLUSIVE}
    assert regression(comparison) == []  # nothing graded is never a regression


@pytest.mark.parametrize(
    ("a", "b", "blockers"),
    [
        ("run-lonely", "run-alone", [ParityBlocker.MISSING_RUN_GROUP]),  # both absent
        ("run-same", "run-lonely", [ParityBlocker.MISSING_RUN_GROUP]),
        ("run-lonely", "run-same", [ParityBlocker.MISSING_RUN_GROUP]),
        ("run-lonely", "run-lonely", [ParityBlocker.MISSING_RUN_GROUP]),  # not even itself
        ("run-same", "run-draft", [ParityBlocker.PROVISIONAL]),
        ("run-draft", "run-same", [ParityBlocker.PROVISIONAL]),
    ],
)
def test_a_blocked_pair_shows_blockers_and_no_delta(
    store: Store, a: str, b: str, blockers: list[ParityBlocker]
) -> None:
    comparison = store.compare(a, b)
    assert comparison.blockers == blockers and not comparison.comparable
    assert comparison.cases is None and not comparison.forced
    assert len(comparison.stages) == 6 and all(r.delta is None for r in comparison.stages)
    assert regression(comparison) == []
    forced = store.compare(a, b, force=True)
    assert forced.forced and forced.cases is not None and len(forced.cases) == 8
    assert all(r.delta is None for r in forced.stages)


def test_the_sql_macro_agrees_with_the_comparison(store: Store) -> None:
    for a, b in (("run-lonely", "run-alone"), ("run-same", "run-draft"), ("run-same", "run-twin")):
        (got,) = store.sql(f"SELECT parity_blockers('{a}', '{b}') AS b")["b"].to_list()
        assert got == [str(x) for x in store.compare(a, b).blockers]


def test_a_run_without_the_document_is_unmeasured(store: Store) -> None:
    comparison = store.compare("run-same", "run-twin", analyzer=11)
    assert comparison.unmeasured == ["run-same", "run-twin"] and not comparison.comparable
    assert comparison.blockers == [] and comparison.stages == [] and comparison.cases is None
    assert store.compare("run-same", "run-same", analyzer=11).unmeasured == ["run-same"]


def test_an_unknown_run_is_an_error(store: Store) -> None:
    with pytest.raises(UsageError, match="no such run"):
        store.compare("run-same", "nope")


def test_case_verdicts_follow_the_pass_threshold(store: Store) -> None:
    """CONTRACT §6.3: passed / eligible ≥ threshold (its own, else 1); equality passes."""
    rows = query_rows(
        store.db.con, "query/compare_cases.sql", {"run_a": "run-threshold", "run_b": "x"}
    )
    verdicts = [row["verdict"] for row in rows[:4]]
    assert verdicts == ["passed", "failed", "passed", "passed"]


def test_the_document_round_trips_through_its_schema(store: Store) -> None:
    comparison = store.compare("run-before", "run-after")
    assert RunComparison.model_validate_json(comparison.to_json()) == comparison
