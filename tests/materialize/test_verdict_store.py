"""Decision summaries of stored runs: every verdict input read from the export as TRACE-FORMAT
§3.7.2 pins it, refusals as `verdictSummaryUnavailable`, the stored table, and paging."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import MISSING
from verdict_runs import V2, import_runs, run_requests

import valuechain
from valuechain.contract.verdict_policy import VerdictPolicyFile
from valuechain.errors import UsageError
from valuechain.materialize import verdict
from valuechain.materialize.verdict import CursorError, decode_cursor, encode_cursor, read_page

RESULT, STATUS, ERRORED = (
    "mcp.app.trial.result",
    "mcp.app.trial.status",
    "mcp.app.evidence.evaluator_errored",
)
FAILED = {RESULT: "failed"}
EVERY_PASS = {(c, r): {RESULT: "passed"} for c in range(4) for r in range(2)}


def summary(store: valuechain.Store, run: str) -> dict[str, Any]:
    return json.loads(store.verdict(run).summary.to_json())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("verdicts") / "store.duckdb"
    runs = {
        "v2-pass": run_requests("v2-pass", EVERY_PASS, V2),
        "v2-fail": run_requests("v2-fail", {**EVERY_PASS, (1, 0): FAILED, (1, 1): FAILED}, V2),
        "v2-cancelled": run_requests(
            "v2-cancelled", {**EVERY_PASS, (0, 0): {STATUS: "cancelled"}}, V2
        ),
        "v2-evaluator": run_requests(
            "v2-evaluator", {**EVERY_PASS, (2, 0): {ERRORED: True}, (2, 1): {ERRORED: True}}, V2
        ),
        "v2-unreported": run_requests("v2-unreported", EVERY_PASS, V2, drop=frozenset({(3, 1)})),
        "v2-range": run_requests(
            "v2-range", EVERY_PASS, {**V2, "mcp.app.case.pass_threshold": 1.2}
        ),
        "v2-conflict": run_requests(
            "v2-conflict", {**EVERY_PASS, (0, 0): {"mcp.app.suite.default_pass_threshold": 0.9}}, V2
        ),
        "v2-no-threshold": run_requests(
            "v2-no-threshold", EVERY_PASS, {**V2, "mcp.app.suite.default_pass_threshold": None}
        ),
        "v2-running": run_requests(
            "v2-running", EVERY_PASS, {**V2, "mcp.app.run.status": "running"}
        ),
        "legacy-passed": run_requests(
            "legacy-passed",
            EVERY_PASS,
            {
                "mcp.app.run.verdict": "passed",
                "mcp.app.run.summary.total": 8,
                "mcp.app.run.summary.passed": 8,
                "mcp.app.run.summary.failed": 0,
            },
        ),
        "legacy-none": run_requests("legacy-none", EVERY_PASS),
        "many": run_requests(
            "many",
            {
                (c, r): {RESULT: "failed" if (c + r) % 3 == 0 else "passed"}
                for c in range(30)
                for r in range(2)
            },
            V2,
            cases=30,
        ),
    }
    import_runs(path, runs)
    with valuechain.open(path) as opened:
        yield opened


def test_a_v2_run_is_decided_and_stored(store: valuechain.Store) -> None:
    view = store.verdict("v2-pass")
    assert view.stored and not view.policy_file
    w = summary(store, "v2-pass")
    assert (w["verdict"], w["verdictSource"]) == ("passed", "policyV2")
    assert w["counts"] == {
        "measurementUnit": "caseVariant",
        "total": 4,
        "passed": 4,
        "failed": 0,
        "inconclusive": 0,
    }
    assert w["decision"]["validity"]["configuredTrials"] == 8
    assert {c["effectivePassThreshold"] for c in w["decision"]["cases"]} == {0.5}
    assert {c["executionVariant"]["provider"] for c in w["decision"]["cases"]} == {"anthropic"}
    assert w["diagnostics"] == {"items": [], "complete": True, "scannedIterations": 8}
    row = store.sql(
        "SELECT verdict, verdict_source, measurement_unit, counted_total, reasons, "
        "diagnostics_complete FROM decision_summaries WHERE run_id = 'v2-pass' "
        "AND chain_source = 'derived'"
    ).row(0)
    assert row == ("passed", "policyV2", "caseVariant", 4, ["allMeasuredCasesMetThreshold"], True)


@pytest.mark.parametrize(
    ("run", "verdict", "reasons"),
    [
        ("v2-fail", "failed", ["casePassRateBelowThreshold"]),
        ("v2-cancelled", "inconclusive", ["configuredTrialsNotAttempted"]),
        (
            "v2-evaluator",
            "inconclusive",
            ["evaluatorErrorRateAboveMaximum", "caseHasNoEligibleTrials"],
        ),
        ("v2-unreported", "inconclusive", ["configuredTrialsNotAttempted"]),
    ],
)
def test_v2_decisions(store: valuechain.Store, run: str, verdict: str, reasons: list[str]) -> None:
    w = summary(store, run)
    assert (w["verdict"], w["decision"]["reasons"]) == (verdict, reasons)


def test_exclusions_name_the_trial_reasons(store: valuechain.Store) -> None:
    validity = summary(store, "v2-unreported")["decision"]["validity"]
    assert validity["completionRate"]["exclusions"] == {"notTerminal": 1}
    cases = summary(store, "v2-evaluator")["decision"]["cases"]
    assert [c["passRate"]["exclusions"] for c in cases if c["eligibleTrials"] == 0] == [
        {"evaluatorError": 2}
    ]


@pytest.mark.parametrize(
    ("run", "detail"),
    [
        ("v2-range", "mcp.app.case.pass_threshold is 1.2, not a fraction in [0,1]"),
        ("v2-conflict", "mcp.app.suite.default_pass_threshold carries 2 values"),
        ("v2-no-threshold", "no pass threshold"),
    ],
)
def test_a_refused_v2_run_reads_not_established(
    store: valuechain.Store, run: str, detail: str
) -> None:
    w = summary(store, run)
    assert (w["verdict"], w["verdictSource"], w["undecided"]["reason"]) == (
        "notEstablished",
        "none",
        "verdictSummaryUnavailable",
    )
    assert detail in w["undecided"]["detail"]
    assert "counts" not in w


def test_undecided_and_legacy_runs(store: valuechain.Store) -> None:
    assert summary(store, "v2-running")["undecided"] == {"reason": "runNotTerminal"}
    legacy = summary(store, "legacy-passed")
    assert (legacy["verdict"], legacy["verdictSource"], legacy["counts"]) == (
        "passed",
        "legacy",
        {"measurementUnit": "trial", "total": 8, "passed": 8, "failed": 0},
    )
    assert summary(store, "legacy-none")["undecided"] == {"reason": "runResultNotAVerdict"}


def test_a_policy_file_decides_on_read(store: valuechain.Store) -> None:
    policy = VerdictPolicyFile(min_eligible_trials=7, default_pass_threshold=0.5)
    view = store.verdict("v2-cancelled", policy=policy)
    assert not view.stored and view.policy_file
    assert view.summary.verdict.value == "passed"
    strict = store.verdict(
        "v2-fail", policy=VerdictPolicyFile(case_pass_thresholds={}, default_pass_threshold=0)
    )
    assert strict.summary.verdict.value == "passed"


def test_the_first_page_of_a_large_run_is_partial(store: valuechain.Store) -> None:
    first = store.verdict("many").summary.diagnostics
    assert (first.complete, first.scanned_iterations) == (False, 50)
    assert isinstance(first.next_cursor, str)
    second = store.verdict("many", page=first.next_cursor).summary.diagnostics
    assert (second.complete, second.scanned_iterations) == (False, 10)
    assert second.next_cursor is MISSING  # the last page names no next one
    seen = [i.iteration_id for i in [*first.items, *second.items]]
    assert len(seen) == len(set(seen)) == 20  # (c + r) % 3 == 0 over 30 × 2


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(1, 61))
def test_paging_visits_each_non_passing_trial_exactly_once(
    store: valuechain.Store, size: int
) -> None:
    con = store.db.con
    seen: list[str] = []
    scanned, cursor, pages = 0, None, 0
    while True:
        page = read_page(con, "many", cursor=cursor, limit=size)
        pages += 1
        # Only a first page that holds the whole run is complete.
        assert page.complete == (cursor is None and page.next_cursor is MISSING)
        seen += [i.iteration_id for i in page.items]
        scanned += page.scanned_iterations
        if not isinstance(page.next_cursor, str):
            break
        cursor = page.next_cursor
    assert len(seen) == len(set(seen)) == 20
    assert scanned == 60
    assert pages == -(-60 // size)


def test_cursors(store: valuechain.Store) -> None:
    cursor = encode_cursor("many", 3, "it_x")
    assert decode_cursor("many", cursor) == (3, "it_x")
    for bad in ("nope", "vc1.!!!", encode_cursor("v2-pass", 1, "t")):
        with pytest.raises(CursorError):
            decode_cursor("many", bad)
    with pytest.raises(UsageError, match="belongs to run v2-pass"):
        store.verdict("many", page=encode_cursor("v2-pass", 1, "t"))
    with pytest.raises(UsageError, match="no such run"):
        store.verdict("nobody")


def test_an_older_store_migrates_and_decides_on_read(
    store: valuechain.Store, tmp_path: Path
) -> None:
    path = tmp_path / "old.duckdb"
    import_runs(path, {"v2-pass": run_requests("v2-pass", EVERY_PASS, V2)})
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE core.decision_summaries CASCADE")
    con.execute("UPDATE core.meta SET value = '6' WHERE key = 'schema_version'")
    con.close()
    with valuechain.open(path) as migrated:
        assert migrated.sql("SELECT count(*) AS n FROM decision_summaries").item() == 0
        view = migrated.verdict("v2-pass")
        assert (view.stored, view.summary.verdict.value) == (False, "passed")
        migrated.materialize(["v2-pass"])
        assert migrated.verdict("v2-pass").stored


def test_batches_of_runs_write_what_one_batch_writes(
    store: valuechain.Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    con = store.db.con
    query = "SELECT * FROM core.decision_summaries ORDER BY ALL"
    before = con.execute(query).fetchall()
    monkeypatch.setattr(verdict, "BATCH_RUNS", 2)
    con.begin()
    try:
        assert verdict.write_decision_summaries(con, None) == len(before) > 2
        assert con.execute(query).fetchall() == before
    finally:
        con.rollback()
