"""A result's variant: a provider its trace spans leave unset (a provider HTTP error) comes
from the run's other results, so every repetition of a case stays in one variant."""

from __future__ import annotations

from pathlib import Path

import pytest

import valuechain
from valuechain.ingest.mcpjam.translate import variants_of

PRODUCERS = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
REPORTS = sorted(PRODUCERS.glob("*/captured/suite-model-*/0*.json"))


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: "/".join(p.parts[-4:-1]))
def test_every_trial_of_a_suite_report_is_in_one_variant(report: Path, tmp_path: Path) -> None:
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths([report]).ok
        variants = store.sql("SELECT DISTINCT provider, model FROM trials").to_dicts()
        per_case = store.sql(
            "SELECT case_title, count(*) AS n FROM trials GROUP BY ALL ORDER BY ALL"
        ).to_dicts()
    assert len(variants) == 1, variants
    assert {r["n"] for r in per_case} == {3}, per_case
    if "repo-6d550c0" in report.parts:  # 6.x spans name the provider; 1.14.0's never do
        assert variants[0]["provider"] == "fakellm"


def _result(model: str | None, provider: str | None) -> dict[str, object]:
    span = {"category": "llm", "modelId": model, "provider": provider}
    return {"caseTitle": "c", "passed": True, "trace": {"spans": [span]}}


def test_a_missing_provider_comes_from_the_same_model_elsewhere_in_the_run() -> None:
    results = [_result("m1", "p1"), _result("m2", "p2"), _result("m1", None)]
    assert variants_of(results) == [("p1", "m1"), ("p2", "m2"), ("p1", "m1")]


def test_the_run_single_provider_fills_a_model_it_never_names() -> None:
    results = [_result("m1", "p1"), _result("m2", None)]
    assert variants_of(results) == [("p1", "m1"), ("p1", "m2")]


def test_two_providers_leave_a_missing_one_unknown() -> None:
    same_model = [_result("m1", "p1"), _result("m1", "p2"), _result("m1", None)]
    assert variants_of(same_model)[2] == ("unknown", "m1")
    other_models = [_result("m1", "p1"), _result("m2", "p2"), _result("m3", None)]
    assert variants_of(other_models)[2] == ("unknown", "m3")


def test_no_provider_anywhere_stays_unknown() -> None:
    assert variants_of([_result("m1", None), _result("m1", None)]) == [("unknown", "m1")] * 2
