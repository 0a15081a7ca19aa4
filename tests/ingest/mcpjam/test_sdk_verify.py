"""`verify` sets the SDK's own verdict (`passed`) beside the derived chain, on the captured SDK
bodies: per trial whether they agree (both fail, or neither does) and, in words, why not.

The expected disagreements are those of fixtures/producers/mcpjam-sdk/README.md ("Resulting
`passed` values" against the per-trial chains) and docs/spec/mcpjam-sdk.md §5.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import valuechain

PRODUCERS = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"

PROVIDER = "provider error: the model call failed"
EXTRA = "matcher disagreement: the SDK's test rejected the extra call(s) echo"
TURNS = "matcher disagreement: turn 0 misses echo — the SDK's own turn summary"

# source → {(case, repetition): the start of `why`} of the trials that disagree
DISAGREEING = {
    "1.14.0/captured/suite-model-a": {
        **{("extra-call", r): EXTRA for r in range(3)},
        **{("provider-error", r): PROVIDER for r in range(3)},
    },
    "1.14.0/captured/suite-model-b": {
        **{("extra-call", r): EXTRA for r in range(3)},
        **{("provider-error", r): PROVIDER for r in range(3)},
    },
    # 6.x suites send maxExtraToolCalls 0 and a toolNeverCalled row: extra-call fails both ways
    "repo-6d550c0/captured/suite-model-a": {("provider-error", r): PROVIDER for r in range(3)},
    "repo-6d550c0/captured/suite-model-b": {("provider-error", r): PROVIDER for r in range(3)},
    "1.14.0/captured/reporter": {
        ("extra-call", 0): EXTRA,
        ("provider-error", 0): PROVIDER,
        ("multi-turn", 0): TURNS,
    },
    "repo-6d550c0/captured/reporter": {
        ("extra-call", 0): EXTRA,
        ("provider-error", 0): PROVIDER,
        ("multi-turn", 0): TURNS,
    },
}


@pytest.mark.parametrize("source", sorted(DISAGREEING))
def test_each_trial_has_the_sdk_claim_beside_the_chain(source: str, tmp_path: Path) -> None:
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths(sorted((PRODUCERS / source).glob("0*.json"))).ok
        claims = store.producer_claims()
        (n,) = store.sql("SELECT count(*) FROM trials").row(0)
    rows = claims.rows.to_dicts()
    assert claims.trials == n == len(rows) and n in (12, 30)
    got = {(r["case_title"], r["repetition"]): r["why"] for r in rows if not r["agrees"]}
    expected = DISAGREEING[source]
    assert set(got) == set(expected)
    for key, start in expected.items():
        assert got[key] is not None and got[key].startswith(start), (key, got[key])
    assert claims.disagree == len(expected) and claims.agree == n - len(expected)
    for r in rows:
        # the SDK's claim is the imported `passed`; a trial neither side fails says nothing
        assert r["producer_result"] in ("passed", "failed")
        assert (r["why"] is None) == (
            r["producer_result"] == "passed" and r["derived_result"] != "failed"
        )
        if r["case_title"] == "tool-iserror":
            # the SDK fails it under failOnToolError; the contract files the error at Response
            assert r["agrees"] and r["first_failed_stage"] == "response"
            assert r["why"].startswith("tool error under failOnToolError (the SDK's default)")
            assert "the contract files it at Response (toolError)" in r["why"]
        if r["case_title"] == "provider-error":
            assert r["producer_result"] == "failed" and r["derived_result"] == "notMeasured"
