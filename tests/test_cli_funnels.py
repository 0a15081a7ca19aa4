"""The funnel verbs end to end: runs, funnel, materialize, schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import valuechain
from valuechain.cli import main

EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"
RUN = "run_8d2e1f0a9b"


@pytest.fixture
def store_path(tmp_path: Path, shared: Path) -> str:
    path = str(tmp_path / "s.duckdb")
    result = CliRunner().invoke(main, ["--store", path, "import", str(shared / EXAMPLE)])
    assert result.exit_code == 0, result.output
    return path


def run(store_path: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--store", store_path, *args])
    return result.exit_code, result.output


def test_runs_lists_the_run_with_its_parity_identity(store_path: str) -> None:
    code, output = run(store_path, "runs", "--format", "json")
    assert code == 0
    (row,) = json.loads(output)
    assert row["run_id"] == RUN
    assert row["included_trials"] == 7 and row["total_trials"] == 8
    assert row["config_revision"] == "cr_0007"
    assert row["materialization_state"] == "final"


def test_funnel_json_is_the_stored_document(store_path: str) -> None:
    code, output = run(store_path, "funnel", RUN, "--format", "json")
    assert code == 0
    document = json.loads(output)
    assert document["runId"] == RUN and document["stageAnalyzerVersion"] == 12
    with valuechain.open(store_path, read_only=True) as store:
        stored = store.analytics_document(RUN)
    assert stored is not None and json.loads(stored.to_json()) == document


def test_funnel_table_never_shows_a_zero_for_not_measured(store_path: str) -> None:
    code, output = run(store_path, "funnel", RUN, "--slice", "model")
    assert code == 0
    assert "excluded lifecycle 1" in output


def test_missing_run_and_unmeasured_run_say_different_things(store_path: str) -> None:
    code, output = run(store_path, "funnel", "no-such-run")
    assert code == 1 and "no such run" in output
    with valuechain.open(store_path) as store:
        store.sql("DELETE FROM core.analytics_documents")
    code, output = run(store_path, "funnel", RUN)
    assert code == 0 and "UNMEASURED" in output and "no such run" not in output
    code, output = run(store_path, "funnel", RUN, "--format", "json")
    assert code == 1 and "unmeasured" in output


def test_materialize_rebuilds_every_document(store_path: str) -> None:
    code, output = run(store_path, "materialize")
    assert code == 0 and "materialized" in output
    code, output = run(store_path, "funnel", RUN, "--chains", "producer", "--format", "json")
    assert code == 0 and json.loads(output)["runId"] == RUN


def test_schema_is_generated_from_the_model() -> None:
    result = CliRunner().invoke(main, ["schema", "stage-analytics"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["$schema"].endswith("2020-12/schema")
    assert "includedTrials" in json.dumps(schema)


def test_runs_csv_writes_list_columns_as_json(store_path: str) -> None:
    code, output = run(store_path, "runs", "--format", "csv")
    assert code == 0, output
    header, row = output.splitlines()[:2]
    assert "conflicting_identity" in header and RUN in row


def test_a_run_without_a_suite_says_why_it_has_no_document(tmp_path: Path, shared: Path) -> None:
    path = str(tmp_path / "plain.duckdb")
    plain = shared / "conformance/otlp/04_jaeger_cassandra_otel_traces_01_links_events.json"
    assert run(path, "import", str(plain))[0] == 0
    (source_run,) = valuechain.open(path, read_only=True).runs()["run_id"].to_list()
    assert source_run.startswith("src-")
    code, output = run(path, "funnel", source_run)
    assert code == 0 and "UNMEASURED" in output and "suiteIdMissing" in output


def test_demo_never_touches_the_users_store(
    tmp_path: Path, store_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    before = Path(store_path).read_bytes()
    code, output = run(store_path, "demo")
    assert code == 0, output
    assert Path(store_path).read_bytes() == before
    assert (tmp_path / "valuechain-demo.duckdb").exists()


def test_unknown_runs_and_unwritable_outputs_are_one_red_line(store_path: str) -> None:
    for args in (("verify", "no-such-run"), ("materialize", "no-such-run")):
        code, output = run(store_path, *args)
        assert code == 1 and "no such run" in output, args
    code, output = run(
        store_path, "sql", "SELECT 1", "--format", "csv", "--output", "/nonexistent-dir/x.csv"
    )
    assert code == 1 and "cannot write the output" in output and "Traceback" not in output


def test_trial_issue_ids_are_plain_lower_case_hex(tmp_path: Path, shared: Path) -> None:
    path = str(tmp_path / "c.duckdb")
    run(path, "import", str(shared / "conformance/otlp/02_tempo_vulture_trace_base64ids.json"))
    with valuechain.open(path, read_only=True) as store:
        ids = store.sql("SELECT DISTINCT trace_id FROM trial_issues WHERE trace_id IS NOT NULL")
    assert ids.height >= 1
    assert all(len(t) == 32 and t == t.lower() for t in ids["trace_id"].to_list())
