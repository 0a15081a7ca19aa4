"""The SDK's score rows (`metadata.scores[]`, 6.x) are kept as its claim
(`mcp.app.claim.scores`, docs/spec/mcpjam-sdk.md §4) and `verify` sets them beside the chain
(§5); the derived chain never reads them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from cli_runner import run

import valuechain
from valuechain.ingest.mcpjam.scores import (
    REASON_CHARS,
    definition_hash,
    evaluator_error,
    score_claims,
)

SDK = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
REPORT = (
    SDK
    / "repo-6d550c0"
    / "captured"
    / "suite-model-a"
    / "001-api_v1_projects_default_eval-ingest_report.json"
)


def _definition(scorer: str, role: str, threshold: float, **more: Any) -> dict[str, Any]:
    fallback = "fail" if role == "gating" else "ignore"
    return {
        "scorerId": scorer,
        "idSource": "explicit",
        "scorerVersion": "1",
        "implementationHash": f"impl-{scorer}",
        "label": f"the {scorer} scorer",
        "deterministic": False,
        "passThreshold": threshold,
        "role": role,
        "onError": fallback,
        "onSkipped": fallback,
        **more,
    }


def _row(definition: dict[str, Any], status: str, **more: Any) -> dict[str, Any]:
    return {
        "scorerId": definition["scorerId"],
        "scorerVersion": "1",
        "definitionHash": definition_hash(definition),
        "passThreshold": definition["passThreshold"],
        "deterministic": False,
        "status": status,
        **more,
    }


def _scored_result(errored: bool = True) -> dict[str, Any]:
    """The captured `add-pass` result (every link passes) with judge-like scorers added: a
    gating one passing, a gating one failing, an advisory one failing, a gating one erroring
    (unless not ``errored``), one not applicable, and a row whose definition is not in the
    config. The SDK's `passed` is then false (scoresPassed fails on the failing gate, the
    error, the unjoinable row)."""
    result = copy.deepcopy(json.loads(REPORT.read_text())["results"][0])
    assert result["caseTitle"] == "add-pass" and result["passed"] is True
    clear = _definition("judge:clear", "gating", 0.7)
    tone = _definition("judge:tone", "gating", 0.7, scope={"kind": "turn", "promptIndex": 0})
    style = _definition("judge:style", "advisory", 0.5)
    latency = _definition("custom:latency", "gating", 1)
    moot = _definition("custom:moot", "gating", 1)
    metadata = result["metadata"]
    # without its error row, the latency scorer is not configured (a gating definition with no
    # row at all is an evaluator error too, CONTRACT §6.2)
    metadata["evaluationConfig"]["definitions"] += [clear, tone, style, moot]
    if errored:
        metadata["evaluationConfig"]["definitions"].append(latency)
    metadata["scores"] += [
        _row(clear, "scored", value=0.9, passed=True, rationale="clear"),
        _row(
            tone,
            "scored",
            value=0.4,
            passed=False,
            rationale="too curt " + "x" * 2000,
            scope={"kind": "turn", "promptIndex": 0},
        ),
        _row(style, "scored", value=0.1, passed=False, rationale="no flourish"),
        *([_row(latency, "error", error="timed out after 30000ms")] if errored else []),
        _row(moot, "not_applicable", rationale="nothing to time"),
        {
            **_row(clear, "scored", value=1, passed=True),
            "scorerId": "ghost",
            "definitionHash": "0" * 64,
        },
    ]
    result["passed"] = False
    return result


def test_score_rows_are_read_as_the_sdk_gates_them() -> None:
    claims = score_claims(_scored_result())
    assert claims is not None
    by_id = {c["scorerId"]: c for c in claims}
    # the captured rows first, in the SDK's order, each joined to its definition
    assert [c["scorerId"] for c in claims][:3] == [
        "legacy:test",
        "tool-match",
        "predicate:toolCalledWith#0",
    ]
    assert by_id["legacy:test"] == {
        "scorerId": "legacy:test",
        "label": "test()",
        "role": "gating",
        "status": "scored",
        "value": 1,
        "passThreshold": 1,
        "passed": True,
        "gateFailed": False,
        "reason": "test() returned true",
    }
    assert by_id["judge:clear"]["gateFailed"] is False
    tone = by_id["judge:tone"]
    assert (tone["role"], tone["value"], tone["passed"], tone["gateFailed"]) == (
        "gating",
        0.4,
        False,
        True,
    )
    assert tone["promptIndex"] == 0
    assert len(tone["reason"]) == REASON_CHARS and tone["reason"].startswith("too curt x")
    style = by_id["judge:style"]
    assert (style["role"], style["passed"], style["gateFailed"]) == ("advisory", False, False)
    latency = by_id["custom:latency"]
    assert (latency["status"], latency["gateFailed"], latency["reason"]) == (
        "error",
        True,
        "timed out after 30000ms",
    )
    assert "value" not in latency and "passed" not in latency
    assert by_id["custom:moot"]["gateFailed"] is False
    assert by_id["ghost"]["role"] is None and by_id["ghost"]["gateFailed"] is True
    # the rule `passed` follows: the result passes iff no row fails the gate
    assert not any(c["gateFailed"] for c in claims[:5])


def test_a_result_without_score_rows_has_no_claim() -> None:
    result = json.loads(REPORT.read_text())["results"][0]
    del result["metadata"]["scores"]
    assert score_claims(result) is None
    assert score_claims({"caseTitle": "1.14.0", "passed": True, "metadata": {}}) is None


def test_every_captured_score_row_joins_its_definition() -> None:
    """The definition hash is the SDK's (derive.ts:86): every row the 6.x SDK wrote joins a
    definition of its result's config, and its gate reading gives the result's `passed`."""
    checked = 0
    for path in sorted((SDK / "repo-6d550c0" / "captured").glob("suite-model-*/0*.json")):
        for result in json.loads(path.read_text())["results"]:
            claims = score_claims(result)
            assert claims
            assert all(c["role"] == "gating" for c in claims)
            assert result["passed"] is not any(c["gateFailed"] for c in claims)
            checked += len(claims)
    assert checked > 100


def _import(tmp: Path, results: list[dict[str, Any]], name: str) -> Path:
    source = tmp / f"{name}.json"
    report = {"suiteName": "scores", "externalRunId": f"run-{name}", "results": results}
    source.write_bytes(orjson.dumps(report))
    store = tmp / f"{name}.duckdb"
    with valuechain.open(store) as s:
        assert s.import_paths([source]).ok
    return store


def _chains(store: Path) -> list[tuple[Any, ...]]:
    with valuechain.open(store, read_only=True) as s:
        rows = s.sql(
            "SELECT t.case_title, c.stage, c.state, c.reason FROM trials t "
            "JOIN stage_chain c USING (trial_id) WHERE c.source = 'derived' "
            "ORDER BY 1, c.stage_index"
        )
    return [tuple(r) for r in rows.iter_rows()]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("scores")
    bare = _scored_result()
    del bare["metadata"]["scores"]
    return _import(tmp, [_scored_result()], "scored"), _import(tmp, [bare], "bare")


def test_score_rows_are_a_claim_the_chain_never_reads(tmp_path: Path) -> None:
    # what a row scored (its value, its passed, its rationale) decides no link: only an
    # errored or missing gating row is evidence (`evaluatorErrored`, CONTRACT §6.2)
    quiet = _scored_result(errored=False)
    flipped = copy.deepcopy(quiet)
    for row in flipped["metadata"]["scores"]:
        if row.get("status") == "scored":
            row["passed"] = not row.get("passed")
            row["value"] = 1 - row.get("value", 0)
            row["rationale"] = "read otherwise"
    scored = _import(tmp_path, [quiet], "quiet")
    chain = _chains(scored)
    assert chain == _chains(_import(tmp_path, [flipped], "flipped"))
    assert {state for _, _, state, _ in chain} <= {"passed", "notApplicable"}
    with valuechain.open(scored, read_only=True) as s:
        (text,) = s.sql(
            "SELECT string_value FROM attributes WHERE key = 'mcp.app.claim.scores'"
        ).row(0)
        issues = s.sql("SELECT count(*) FROM issues WHERE code = 'W_UNKNOWN_CONTRACT_KEY'").row(0)
    assert orjson.loads(text) == score_claims(quiet)
    assert issues == (0,)


def _with_scores(definitions: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": {"evaluationConfig": {"definitions": definitions}, "scores": rows}}


_GATE = _definition("judge:gate", "gating", 0.5)
_ADVICE = _definition("judge:advice", "advisory", 0.5)
_LENIENT = _definition("judge:lenient", "gating", 0.5, onError="ignore", onSkipped="ignore")
_UNSET = {k: v for k, v in _GATE.items() if k not in ("onError", "onSkipped")}


@pytest.mark.parametrize(
    ("case", "definitions", "rows", "errored"),
    [
        ("no definitions, an error row", [], [_row(_GATE, "error")], False),
        ("a gating row scored", [_GATE], [_row(_GATE, "scored", passed=False)], False),
        ("a gating row errored, onError fail", [_GATE], [_row(_GATE, "error")], True),
        ("a gating row skipped, onSkipped fail", [_GATE], [_row(_GATE, "skipped")], True),
        ("policies unset: their default is fail", [_UNSET], [_row(_UNSET, "error")], True),
        ("a gating row errored, onError ignore", [_LENIENT], [_row(_LENIENT, "error")], False),
        ("an advisory row errored", [_ADVICE], [_row(_ADVICE, "error")], False),
        ("a gating definition without a row", [_GATE], [], True),
        ("a lenient gating definition without a row", [_LENIENT], [], False),
        ("an advisory definition without a row", [_ADVICE], [], False),
        (
            "a row of no definition errored",
            [_GATE],
            [
                _row(_GATE, "scored", passed=True),
                {**_row(_ADVICE, "error"), "definitionHash": "0" * 64},
            ],
            False,
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_an_evaluator_error_is_read_as_the_contract_says(
    case: str, definitions: list[dict[str, Any]], rows: list[dict[str, Any]], errored: bool
) -> None:
    """CONTRACT §6.2 `evalV2IterationHasEvaluatorError`: over the gating definitions (a role
    is gating unless advisory), a joined row errored or skipped under a `fail` policy, or no
    row at all unless `onSkipped: ignore`; no definitions, or a row of none, decide nothing."""
    assert evaluator_error(_with_scores(definitions, rows)) is errored, case


def test_an_invalid_score_integrity_is_an_evaluator_error() -> None:
    result = _with_scores([], [])
    result["metadata"]["scoreIntegrity"] = "score_integrity_invalid"
    assert evaluator_error(result) is True


def test_verify_sets_the_score_rows_beside_the_chain(stores: tuple[Path, Path]) -> None:
    scored, bare = stores
    result = run("--store", scored, "verify", "--claims", "--format", "json")
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    # the errored gating row withdraws User value (evaluatorError): the chain fails no link
    assert (row["producer_result"], row["derived_result"], row["agrees"]) == (
        "failed",
        "notMeasured",
        False,
    )
    assert row["why"] == (
        "gating score failed: judge:tone scored 0.4 < 0.7 (too curt "
        + "x" * (REASON_CHARS - 10)
        + "…); custom:latency error (timed out after 30000ms); ghost joins no definition of the "
        "evaluation config; the SDK's passed is its gating scores, the chain found no failed link"
    )
    scores = {s["scorer_id"]: s for s in row["scores"]}
    assert len(row["scores"]) == 11
    assert scores["judge:style"] == {
        "scorer_id": "judge:style",
        "label": "the judge:style scorer",
        "role": "advisory",
        "status": "scored",
        "value": 0.1,
        "pass_threshold": 0.5,
        "passed": False,
        "gate_failed": False,
        "reason": "no flourish",
        "prompt_index": None,
    }
    assert [s["scorer_id"] for s in row["scores"] if s["gate_failed"]] == [
        "judge:tone",
        "custom:latency",
        "ghost",
    ]
    csv = run("--store", scored, "verify", "--claims", "--format", "csv")
    assert csv.exit_code == 0 and '""scorer_id"":""judge:tone""' in csv.stdout
    table = run("--store", scored, "verify")
    assert table.exit_code == 0 and "gating score failed: judge:tone scored 0.4" in " ".join(
        table.stdout.split()
    )
    # without score rows the claim is `passed` alone: no rows, and the old reading of why
    (bare_row,) = json.loads(run("--store", bare, "verify", "--claims", "--format", "json").stdout)
    assert bare_row["scores"] is None
    assert bare_row["why"].startswith("the SDK's test failed on something its results do not show")


def test_malformed_score_rows_are_kept_as_far_as_they_read() -> None:
    result = {
        "metadata": {
            "scores": [{"scorerId": "x", "definitionHash": ["not", "a", "hash"]}, "junk"],
            "evaluationConfig": {"definitions": ["junk", {"scorerId": "x", "passThreshold": 1.0}]},
        }
    }
    # an unjoinable row fails the SDK's gate (run.ts:161); what is not a row is left out
    assert score_claims(result) == [
        {"scorerId": "x", "role": None, "status": None, "gateFailed": True}
    ]
