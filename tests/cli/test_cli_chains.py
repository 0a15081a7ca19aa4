"""``derive``, ``verify`` and ``trial`` on the spec example export."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_runner import EXAMPLE, EXAMPLE_RUN, run

import valuechain


@pytest.fixture
def example(shared: Path) -> Path:
    return shared / EXAMPLE


@pytest.mark.usefixtures("wide")
def test_verify_lists_a_tampered_producer_row(tmp_path: Path, example: Path) -> None:
    text = example.read_text()
    needle = '{"key":"mcp.app.stages.2.state","value":{"stringValue":"passed"}}'
    assert needle in text
    tampered = tmp_path / "tampered.json"
    tampered.write_text(text.replace(needle, needle.replace("passed", "failed"), 1))
    store_path = tmp_path / "s.duckdb"
    assert run("--store", store_path, "import", tampered).exit_code == 0
    result = run("--store", store_path, "verify", "--format", "json")
    assert result.exit_code == 0, result.output
    assert '"stage": "selection"' in result.output
    assert '"producer_state": "failed"' in result.output
    assert '"derived_state": "passed"' in result.output
    table = run("--store", store_path, "verify")
    assert table.stdout.startswith(
        "8 trials carry a producer chain; 1 disagree with the derived one\n"
    )
    assert re.search(r"selection\s+12\s+failed\s+observed\s+12\s+passed", table.stdout)


def test_verify_of_an_agreeing_run_prints_only_the_count(example_store: str) -> None:
    result = run("--store", example_store, "verify", EXAMPLE_RUN)
    assert result.exit_code == 0
    assert result.stdout == "8 trials carry a producer chain; 0 disagree with the derived one\n"
    assert run("--store", example_store, "verify", "--format", "json").stdout == "[]\n"


def test_derive_reports_what_it_derived(example_store: str) -> None:
    result = run("--store", example_store, "derive", "--analyzer", "11")
    assert result.exit_code == 0
    assert result.stdout.startswith("derived 8 chains at analyzer 11 over 8 trials in 1 run;")


def test_trial_command_shows_where_value_stopped(tmp_path: Path, example: Path) -> None:
    store_path = str(tmp_path / "s.duckdb")
    run("--store", store_path, "import", example)
    with valuechain.open(store_path) as s:
        failing = s.sql(
            "SELECT trial_id, first_failed_stage FROM trial_outcome "
            "WHERE source = 'derived' AND first_failed_stage IS NOT NULL ORDER BY 1 LIMIT 1"
        ).row(0)
    result = run("--store", store_path, "trial", failing[0])
    assert result.exit_code == 0, result.output
    assert f"where value stopped: {failing[1]}" in result.output
    assert "next:" in result.output
    as_json = run("--store", store_path, "trial", failing[0], "--format", "json")
    assert f'"firstFailedStage": "{failing[1]}"' in as_json.output
    assert '"stageIndex": 0' in as_json.output and '"stage_index"' not in as_json.output
    missing = run("--store", store_path, "trial", "no-such-trial")
    assert missing.exit_code == 1
    assert "no such trial" in missing.output
