"""SDK results import: runs per report, bad results quarantined by JSON path, EvalTraceSpan
JSON rejected by name, the same bytes twice change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import valuechain

ROOT = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk" / "1.14.0"
REPORTS = sorted((ROOT / "captured").glob("suite-model-*/0*.json"))


def test_two_models_are_two_runs_of_one_suite_and_reimport_changes_nothing(tmp_path: Path) -> None:
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths(REPORTS).ok
        runs = store.sql(
            "SELECT run_id, suite_id, count(*) AS n, count(DISTINCT model) AS models "
            "FROM trials GROUP BY ALL"
        ).to_dicts()
        again = store.import_paths(REPORTS)
    assert [r["n"] for r in runs] == [30, 30]
    assert len({r["suite_id"] for r in runs}) == 1
    assert all(r["models"] == 1 for r in runs)
    assert {s.outcome for s in again.sources} == {"unchanged"}


def test_a_bad_result_is_quarantined_with_its_path(tmp_path: Path) -> None:
    report = json.loads(REPORTS[0].read_text())
    report["results"][3]["passed"] = "yes"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    with valuechain.open(tmp_path / "s.duckdb") as store:
        result = store.import_paths([path])
        rows = store.sql("SELECT json_path FROM issues WHERE code = 'E_INVALID_RECORD'")
        trials = store.sql("SELECT count(*) AS n FROM trials").item()
    assert result.sources[0].outcome == "partial"
    assert rows["json_path"].to_list() == ["$.results[3].passed"]
    assert trials == 29


def test_eval_trace_span_json_is_rejected_by_name(tmp_path: Path) -> None:
    report = json.loads(REPORTS[0].read_text())
    spans = report["results"][0]["trace"]["spans"]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(spans))
    with valuechain.open(tmp_path / "s.duckdb") as store:
        result = store.import_paths([path])
    assert result.sources[0].outcome == "rejected"
    assert "EvalTraceSpan" in str(result.sources[0].error)


CAPTURED = sorted(ROOT.parent.glob("*/captured/*"))


def test_a_captured_folder_holds_only_sdk_bodies_and_imports_whole(tmp_path: Path) -> None:
    assert len(CAPTURED) == 6, CAPTURED
    for n, folder in enumerate(CAPTURED):
        with valuechain.open(tmp_path / f"{n}.duckdb") as store:
            result = store.import_paths([folder])
        assert result.ok, folder
        assert {s.outcome for s in result.sources} == {"imported"}, (folder, result.sources)
        assert all(s.error is None and not s.issues for s in result.sources), folder
