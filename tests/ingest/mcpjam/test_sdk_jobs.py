"""An SDK source cut into many jobs on the decode workers imports exactly as one job in this
process (docs/spec/mcpjam-sdk.md §4): the same trials, spans, chains, and the same quarantine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import valuechain

ROOT = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
REPORT = next((ROOT / "repo-6d550c0" / "captured" / "suite-model-a").glob("0*.json"))


def _imported(path: Path, store_path: Path, **decode: Any) -> dict[str, Any]:
    with valuechain.open(store_path) as store:
        report = store.import_paths([path], **decode)
        assert report.sources[0].outcome == "partial", report.sources[0]
        return {
            "chains": store.sql(
                "SELECT t.run_id, t.trial_id, t.trial_result, string_agg(c.stage || '=' || "
                "c.state, ' ' ORDER BY c.stage_index) AS chain FROM trials t JOIN stage_chain c "
                "USING (trial_id) WHERE c.source = 'derived' GROUP BY ALL ORDER BY t.trial_id"
            ).to_dicts(),
            "spans": store.sql("SELECT count(*) AS n FROM spans").item(),
            "issues": store.sql("SELECT code, json_path FROM issues ORDER BY json_path").to_dicts(),
            "ledger": store.sql(
                "SELECT records_read, records_ingested, records_quarantined, spans_read "
                "FROM core.sources"
            ).to_dicts(),
        }


def test_many_jobs_on_workers_import_as_one_job(tmp_path: Path) -> None:
    report = json.loads(REPORT.read_text())
    results = []
    for k in range(4):
        for result in report["results"]:
            copy = dict(result, externalIterationId=f"{result['externalIterationId']}-{k}")
            results.append(copy)
    results[50]["matchOptions"] = {"toolCallOrder": "sideways"}  # refused by the matcher
    report["results"] = results
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    one = _imported(path, tmp_path / "one.duckdb")
    # parts of 64 KiB: jobs of ~32 KiB of results, a dozen and more on two workers
    many = _imported(path, tmp_path / "many.duckdb", workers=2, batch_bytes=64 << 10)
    assert len(one["chains"]) == 119
    assert many == one
    assert {"code": "E_INVALID_RECORD", "json_path": "$.results[50].matchOptions"} in one["issues"]
