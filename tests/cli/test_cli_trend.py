"""The ``trend`` verb end to end: table, JSON, CSV, filters and its errors."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from cli_runner import red_line, run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "query"))

from trend_store import partitioned_store

import valuechain
from valuechain.contract.trend import TrendDocument
from valuechain.store import Database


@pytest.fixture(scope="module")
def trend_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("trend") / "trend.duckdb"
    with Database(path) as db:
        partitioned_store(db)
    return path


def test_table_shows_partitions_then_blocked_and_unmeasured_runs(
    trend_store: Path, wide: None
) -> None:
    result = run("--store", trend_store, "trend")
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.index("partition 1/4") < text.index("blocked: 3 runs") < text.index("unmeasured")
    assert "prov: provisional" in text and "nosuite (suiteIdMissing)" in text
    assert "userValue  █·█" in text  # the notMeasured run is a distinct glyph


def test_json_is_the_trend_document(trend_store: Path) -> None:
    result = run("--store", trend_store, "trend", "--format", "json")
    assert result.exit_code == 0, result.output
    document = TrendDocument.model_validate_json(result.stdout)
    assert [len(p.runs) for p in document.partitions] == [3, 2, 1, 1]
    assert {b.run_id for b in document.blocked} == {"bare", "nogroup", "prov"}
    with valuechain.open(trend_store, read_only=True) as store:
        runs = store.trend()["run_id"].unique(maintain_order=True).to_list()
    assert [r.run_id for p in document.partitions for r in p.runs] == runs


def test_filters_reach_the_series_and_the_blocked_list(trend_store: Path) -> None:
    result = run(
        "--store", trend_store, "trend", "--format", "json", "--stage", "call",
        "--suite", "suite-1", "--since", "2026-01-03",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.stdout)
    runs = {r["runId"]: r for p in document["partitions"] for r in p["runs"]}
    assert set(runs) == {"a-third", "cfg2-b"}
    assert all([s["stage"] for s in r["stages"]] == ["call"] for r in runs.values())
    assert document["blocked"] == [{"runId": "prov", "blockers": ["provisional"]}]


def test_csv_is_the_series_and_says_what_it_leaves_out(trend_store: Path) -> None:
    result = run("--store", trend_store, "trend", "--format", "csv", "--slice", "intent")
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header.startswith("run_group_id,config_revision,case_set_fingerprint,")
    assert "measured_pass_rate_state" in header and len(rows) == 7 * 6
    assert "5 runs join no partition or are unmeasured" in result.stderr


def test_an_empty_store_has_no_partition(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    Database(path).close()
    result = run("--store", path, "trend")
    assert result.exit_code == 0 and "no partition" in result.output
    document = orjson.loads(run("--store", path, "trend", "--format", "json").stdout)
    assert document == {"partitions": [], "blocked": [], "unmeasured": []}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chains", "producer", "--analyzer", "11"], "current analyzer only"),
        (["--analyzer", "0"], "not an analyzer version"),
    ],
)
def test_bad_values_are_one_red_line(trend_store: Path, args: list[str], message: str) -> None:
    result = run("--store", trend_store, "trend", *args)
    assert result.exit_code == 1
    assert message in red_line(result)


def test_a_since_that_is_no_date_is_a_usage_error(trend_store: Path) -> None:
    result = run("--store", trend_store, "trend", "--since", "yesterday")
    assert result.exit_code == 2
    assert "'yesterday' is not a date" in red_line(result)


def test_an_unknown_suite_is_named_not_shown_as_empty(trend_store: Path) -> None:
    result = run("--store", trend_store, "trend", "--suite", "nope")
    assert result.exit_code == 1
    assert "suite nope: no such suite in this store" in red_line(result)
    assert result.stdout == ""


def test_an_unknown_stage_is_a_usage_error(trend_store: Path) -> None:
    assert run("--store", trend_store, "trend", "--stage", "tool").exit_code == 2
