"""The run decision summary and its diagnostics (CONTRACT §6.6–§6.7): the §8.4 worked
examples as vectors, the evidence locator and next-action rules, and the validators."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from valuechain.contract.verdict import ValidityPolicy
from valuechain.contract.verdict_aggregate import CaseTrials, Trial, aggregate_verdict
from valuechain.contract.verdict_diagnostics import Diagnostics, Iteration, diagnostics_page
from valuechain.contract.verdict_summary import (
    DecisionSummary,
    RunRecord,
    assemble_decision_summary,
)
from valuechain.contract.vocab import IterationStatus as S
from valuechain.contract.vocab_rules import (
    FALLBACK_NEXT_ACTION,
    NEXT_ACTIONS,
    STALE_ANALYZER_NEXT_ACTION,
    VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION,
)

STAGES = ("connection", "discovery", "selection", "call", "response", "userValue")
PASS = Trial(S.COMPLETED, task_verdict="passed")
FAIL = Trial(S.COMPLETED, task_verdict="failed")
V1 = aggregate_verdict(
    [CaseTrials("a", 4, 0.5, [PASS, PASS, FAIL, FAIL])], ValidityPolicy.resolve()
)


def chain(states: str, version: int = 12, **extra: Any) -> dict[str, Any]:
    """`P P F NR NR NR` → stored chain keys, the first failed stage filled in."""
    codes = {
        "P": "passed",
        "F": "failed",
        "NR": "notReached",
        "NM": "notMeasured",
        "NA": "notApplicable",
    }
    rows = [{"stage": s, "state": codes[c]} for s, c in zip(STAGES, states.split(), strict=True)]
    out: dict[str, Any] = {"stageResults": rows, "stageAnalyzerVersion": version}
    failed = [r["stage"] for r in rows if r["state"] == "failed"]
    if failed:
        out["firstFailedStage"] = failed[0]
    return {**out, **extra}


def iteration(n: int, result: str | None = "failed", **fields: Any) -> Iteration:
    return Iteration(id=f"it{n}", iteration_number=n, status="completed", result=result, **fields)


def page(*iterations: Iteration, complete: bool = True, cursor: str | None = None) -> Diagnostics:
    return diagnostics_page(
        list(iterations), run_id="r1", project_id="p1", complete=complete, next_cursor=cursor
    )


def wire(model: Any) -> dict[str, Any]:
    return json.loads(model.to_json() if hasattr(model, "to_json") else model.model_dump_json())  # type: ignore[no-any-return]


EMPTY = page()


@pytest.mark.parametrize(
    ("run", "verdict", "source", "undecided"),
    [
        (RunRecord("r1", "running"), "notEstablished", "none", {"reason": "runNotTerminal"}),  # D1
        (
            RunRecord("r1", "pending", verdict_policy_version=2, verdict_summary=V1),
            "notEstablished",
            "none",
            {"reason": "runNotTerminal"},
        ),
        (
            RunRecord("r1", "cancelled"),
            "notEstablished",
            "none",
            {"reason": "runStatusNotAVerdict"},
        ),  # D2
        (
            RunRecord("r1", "timed_out", result="passed"),
            "notEstablished",
            "none",
            {"reason": "runStatusNotAVerdict"},
        ),
        (  # D3
            RunRecord(
                "r1",
                "completed",
                verdict_policy_version=2,
                verdict_summary={"verdict": "passed"},
                verdict_policy_integrity_error="mixed evaluator configs across iterations",
            ),
            "notEstablished",
            "none",
            {
                "reason": "verdictSummaryUnavailable",
                "detail": "mixed evaluator configs across iterations",
            },
        ),
        (
            RunRecord("r1", "completed", verdict_policy_version=2),
            "notEstablished",
            "none",
            {"reason": "verdictSummaryUnavailable"},
        ),
        (
            RunRecord("r1", "completed", result=None),
            "notEstablished",
            "none",
            {"reason": "runResultNotAVerdict"},
        ),  # D6
        (
            RunRecord("r1", "completed", result="inconclusive"),
            "notEstablished",
            "none",
            {"reason": "runResultNotAVerdict"},
        ),
    ],
)
def test_no_decision(run: RunRecord, verdict: str, source: str, undecided: dict[str, str]) -> None:
    w = wire(assemble_decision_summary(run, EMPTY))
    assert (w["verdict"], w["verdictSource"], w["undecided"]) == (verdict, source, undecided)
    assert "counts" not in w and "decision" not in w


def test_d4_a_v2_decision_with_failing_trials_still_passes() -> None:
    run = RunRecord("r1", "completed", verdict_policy_version=2, verdict_summary=V1)
    trials = page(iteration(1, "passed"), iteration(2), iteration(3, "passed"), iteration(4))
    w = wire(assemble_decision_summary(run, trials))
    assert (w["schemaVersion"], w["runId"], w["runStatus"]) == (1, "r1", "completed")
    assert (w["verdict"], w["verdictSource"]) == ("passed", "policyV2")
    assert w["counts"] == {
        "measurementUnit": "caseVariant",
        "total": 1,
        "passed": 1,
        "failed": 0,
        "inconclusive": 0,
    }
    assert w["decision"] == json.loads(V1.to_json())
    assert [i["iterationId"] for i in w["diagnostics"]["items"]] == ["it2", "it4"]
    assert "undecided" not in w
    # a v2 run stopped `cancelled` is still read from its decision
    stopped = RunRecord("r1", "cancelled", verdict_policy_version=2, verdict_summary=V1.to_json())
    assert wire(assemble_decision_summary(stopped, EMPTY))["verdictSource"] == "policyV2"


def test_the_policy_version_is_the_literal_2() -> None:
    for version in (2.0, "2", True, 1, None):
        run = RunRecord("r1", "completed", result="passed", verdict_policy_version=version)
        assert wire(assemble_decision_summary(run, EMPTY))["verdictSource"] == "legacy"


@pytest.mark.parametrize(
    ("summary", "counts"),
    [
        (
            {"total": 15, "passed": 15, "failed": 0},
            {"measurementUnit": "trial", "total": 15, "passed": 15, "failed": 0},
        ),
        (None, None),
        ({"total": 3, "passed": -1, "failed": True}, {"measurementUnit": "trial", "total": 3}),
        ({"total": 2.0}, None),
    ],
)
def test_d5_legacy_counts_are_trials_copied_only_when_valid(
    summary: dict[str, object] | None, counts: dict[str, Any] | None
) -> None:
    run = RunRecord("r1", "completed", result="passed", summary=summary)
    w = wire(assemble_decision_summary(run, EMPTY))
    assert (w["verdict"], w["verdictSource"]) == ("passed", "legacy")
    assert w.get("counts") == counts


def test_d7_a_partial_page() -> None:
    d = wire(page(iteration(1, "passed"), iteration(2), complete=False, cursor="cursor-page-2"))
    assert (len(d["items"]), d["scannedIterations"], d["complete"], d["nextCursor"]) == (
        1,
        2,
        False,
        "cursor-page-2",
    )


def test_d8_rows_that_do_not_validate_read_unverified() -> None:
    bad = chain("P P F NR NR NR", version=4)
    bad["stageResults"][3]["state"] = "exploded"
    item = wire(page(iteration(1, metadata=bad)))["items"][0]
    assert item["chain"] == {"status": "unverified", "analyzerVersion": 4}
    assert item["nextAction"] == FALLBACK_NEXT_ACTION
    assert item["evidence"] == {
        "runId": "r1",
        "iterationId": "it1",
        "tracePath": "/projects/p1/eval-runs/r1/iterations/it1/trace",
    }
    null_rows = wire(page(iteration(1, metadata={"stageResults": None})))["items"][0]
    assert null_rows["chain"] == {"status": "unverified"}  # a stored null counts as offered
    flagged = {"stageResultsUnverified": True, "stageAnalyzerVersion": 3}
    assert wire(page(iteration(1, metadata=flagged)))["items"][0]["chain"] == {
        "status": "unverified",
        "analyzerVersion": 3,
    }
    assert wire(page(iteration(1)))["items"][0]["chain"] == {"status": "absent"}


def test_d9_a_version_ahead_is_flagged_never_rejected() -> None:
    stored = chain("P P P F NR NR", version=99, failureCategory="setup")
    item = wire(page(iteration(1, metadata=stored)))["items"][0]
    assert item["chain"]["status"] == "verified"
    assert item["chain"]["analyzerVersionAhead"] == {"reported": 99, "known": 12}
    assert item["chain"]["firstFailedStage"] == "call"
    assert item["chain"]["analyzerVersion"] == 99
    assert item["nextAction"] == NEXT_ACTIONS["setup"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("version", "action"),
    [(6, STALE_ANALYZER_NEXT_ACTION), (8, VERDICT_CHAIN_DISAGREEMENT_NEXT_ACTION)],
)
def test_d10_a_failed_verdict_over_a_passing_chain(version: int, action: str) -> None:
    stored = chain("P P P P P NA", version=version)
    assert wire(page(iteration(1, metadata=stored)))["items"][0]["nextAction"] == action


def test_d11_a_policy_blocked_iteration() -> None:
    stored = chain("NM NM NM NM NM NM")
    for row in stored["stageResults"]:
        row["reason"] = "blockedByPolicy"
    item = wire(page(iteration(1, metadata=stored)))["items"][0]
    assert item["chain"]["status"] == "verified"
    assert "firstFailedStage" not in item["chain"] and "failureCategory" not in item["chain"]
    assert {r["state"] for r in item["chain"]["stages"]} == {"notMeasured"}
    assert item["nextAction"] == FALLBACK_NEXT_ACTION


def test_the_locator_cites_the_first_failed_stage_only() -> None:
    stored = chain("P P F NR NR NR", failureCategory="selection")
    stored["stageResults"][1]["evidence"] = {"spanIds": ["d1"]}
    stored["stageResults"][2]["evidence"] = {
        "spanIds": ["s1", "", "s1", "s2"],
        "promptIndexes": [0, 0, -1, 1.5, 2],
        "predicateReasons": ["why", "why", ""],
    }
    item = wire(page(iteration(1, metadata=stored)))["items"][0]
    assert item["evidence"] == {
        "runId": "r1",
        "iterationId": "it1",
        "tracePath": "/projects/p1/eval-runs/r1/iterations/it1/trace",
        "stage": "selection",
        "spanIds": ["s1", "s2"],
        "promptIndexes": [0, 2],
        "reasons": ["why"],
    }
    stored["stageResults"][2]["evidence"] = {"spanIds": []}  # §2.1: an empty list is a key
    item = wire(page(iteration(1, metadata=stored)))["items"][0]
    assert item["evidence"]["stage"] == "selection" and "spanIds" not in item["evidence"]


def test_item_identity_and_tools() -> None:
    it = Iteration(
        id="it/1",
        iteration_number=7,
        status="completed",
        result="failed",
        case_id="not a valid id",
        test_case_id="",
        title="Close the issue",
        expected_tool_calls=[{"toolName": "a"}, {"tool": "b"}, {"name": "a"}, {"toolName": ""}],
        actual_tool_calls=[{"toolName": "c"}],
        error="boom",
    )
    item = wire(diagnostics_page([it], run_id="r 1", project_id="p/1", complete=True))["items"][0]
    assert "caseId" not in item and "testCaseId" not in item
    assert item["title"] == "Close the issue"
    assert item["expected"] == {"toolNames": ["a", "b"]}
    assert item["observed"] == {"toolNames": ["c"], "failure": "boom"}
    assert (
        item["evidence"]["tracePath"] == "/projects/p%2F1/eval-runs/r%201/iterations/it%2F1/trace"
    )


def test_page_validator() -> None:
    with pytest.raises(ValidationError):
        Diagnostics(items=[], complete=True, next_cursor="c", scanned_iterations=0)
    item = page(iteration(1)).items[0]
    with pytest.raises(ValidationError):
        Diagnostics(items=[item], complete=False, scanned_iterations=0)


@pytest.mark.parametrize(
    "change",
    [
        {"verdictSource": "legacy"},  # a legacy summary has no decision
        {"verdict": "failed"},  # not the decision's verdict
        {"counts": {"measurementUnit": "trial", "total": 1}},
        {"undecided": {"reason": "runNotTerminal"}},
    ],
)
def test_summary_validator(change: dict[str, Any]) -> None:
    run = RunRecord("r1", "completed", verdict_policy_version=2, verdict_summary=V1)
    w = {**wire(assemble_decision_summary(run, EMPTY)), **change}
    with pytest.raises(ValidationError):
        DecisionSummary.model_validate_json(json.dumps(w))


def test_round_trip() -> None:
    run = RunRecord("r1", "completed", verdict_policy_version=2, verdict_summary=V1)
    summary = assemble_decision_summary(run, page(iteration(1, metadata=chain("P P F NR NR NR"))))
    assert DecisionSummary.from_json(summary.to_json()) == summary


STATUSES = st.sampled_from(
    ["pending", "running", "completed", "failed", "cancelled", "timed_out", "queued"]
)


@settings(max_examples=100, deadline=None)
@given(
    STATUSES,
    st.sampled_from([None, "passed", "failed", "inconclusive"]),
    st.sampled_from([None, 1, 2]),
    st.one_of(st.none(), st.fixed_dictionaries({"total": st.integers(0, 9)})),
)
def test_properties_of_every_summary(
    status: str, result: str | None, version: int | None, summary: dict[str, int] | None
) -> None:
    run = RunRecord(
        "r1",
        status,
        result=result,
        summary=summary,
        verdict_policy_version=version,
        verdict_summary=V1 if version == 2 else None,
    )
    w = wire(assemble_decision_summary(run, EMPTY))
    # notEstablished for every non-terminal run, before anything else is read.
    if status not in {"completed", "failed", "cancelled", "timed_out"}:
        assert (w["verdict"], w["undecided"]["reason"]) == ("notEstablished", "runNotTerminal")
    # Counts always carry their unit, and the unit follows the source.
    if "counts" in w:
        unit = {"policyV2": "caseVariant", "legacy": "trial"}[w["verdictSource"]]
        assert w["counts"]["measurementUnit"] == unit
    # No decision is never a failure.
    if w["verdictSource"] == "none":
        assert w["verdict"] == "notEstablished"
