"""SDK runs in time (docs/spec/mcpjam-sdk.md §4.1): a run starts at the `Date.now()` of its
SDK-made id, else of its results' iteration ids, else when its file was written — so `trend`
orders runs by when they ran, not by run id or import order."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import valuechain
from valuechain.ingest.mcpjam.clock import BASE_NS, run_start_ns, stamp_ms

ROOT = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
REPORT = next((ROOT / "repo-6d550c0" / "captured" / "suite-model-a").glob("0*.json"))
CI = {"provider": "github", "pipelineId": "nightly", "branch": "main"}  # one run group
EARLY, LATE = 1_780_000_000_000, 1_790_000_000_000  # epoch ms, 2026-05-28 and 2026-09-21


def test_the_sdk_made_run_id_holds_its_start() -> None:
    assert stamp_ms("sdk-1796646094449-6u9cfylj") == 1_796_646_094_449
    assert stamp_ms("sdk-1796646094449-6u9cfylj-4") == 1_796_646_094_449  # an iteration id
    assert stamp_ms("nightly-2026-12-07") is None  # the caller's own id says nothing
    assert stamp_ms("sdk-99-6u9cfylj") is None  # no Date.now()
    assert stamp_ms(None) is None


def test_the_start_falls_back_in_order() -> None:
    loose = [
        {"externalIterationId": f"sdk-{LATE}-b-1"},
        {"externalIterationId": f"sdk-{EARLY}-a-2"},
    ]
    assert run_start_ns(f"sdk-{LATE}-x", loose, 5) == LATE * 1_000_000
    assert run_start_ns(None, loose, 5) == EARLY * 1_000_000  # the earliest iteration
    assert run_start_ns("mine", [{}], 5) == 5  # received
    assert run_start_ns("mine", [{}], None) == BASE_NS  # bytes with no file behind them


def _report(run_id: str, iteration_prefix: str | None, *, slower: bool = False) -> dict[str, Any]:
    """The captured report as another run of the same group; ``slower``: its trials a minute
    longer (so offsets alone would put it last)."""
    report = json.loads(REPORT.read_text())
    report["externalRunId"] = run_id
    report["ci"] = CI
    for k, result in enumerate(report["results"], 1):
        result["externalIterationId"] = f"{iteration_prefix or run_id}-{k}"
        if slower:
            result["durationMs"] = result.get("durationMs", 0) + 60_000
    return report


def _trend_runs(store: valuechain.Store) -> list[str]:
    frame = store.trend()
    ordered = frame.unique("run_id", maintain_order=True).sort("run_position")
    return list(ordered["run_id"])


def test_trend_orders_two_reports_by_their_sdk_start(tmp_path: Path) -> None:
    # the late run is written and imported first; the early run's trials take longer
    late, early = f"sdk-{LATE}-aaaaaaaa", f"sdk-{EARLY}-zzzzzzzz"
    (tmp_path / "1-late.json").write_text(json.dumps(_report(late, None)))
    (tmp_path / "2-early.json").write_text(json.dumps(_report(early, None, slower=True)))
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths(sorted(tmp_path.glob("*.json"))).ok
        starts = store.sql(
            "SELECT run_id, min(start_time) AS start FROM spans s JOIN trials t "
            "USING (trace_id) GROUP BY run_id ORDER BY run_id"
        ).to_dicts()
        order = _trend_runs(store)
    assert [int(r["start"].timestamp() * 1000) for r in starts] == [EARLY, LATE]
    assert order == [early, late]


def test_without_an_sdk_made_id_runs_start_when_their_file_was_written(tmp_path: Path) -> None:
    first, second = tmp_path / "b.json", tmp_path / "a.json"
    first.write_text(json.dumps(_report("my-run-b", "my-run-b", slower=True)))
    second.write_text(json.dumps(_report("my-run-a", "my-run-a")))
    os.utime(first, ns=(EARLY * 1_000_000, EARLY * 1_000_000))
    os.utime(second, ns=(LATE * 1_000_000, LATE * 1_000_000))
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths([second, first]).ok
        order = _trend_runs(store)
    assert order == ["my-run-b", "my-run-a"]
