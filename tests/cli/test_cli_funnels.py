"""The funnel verbs end to end: runs, funnel, materialize, schema."""

from __future__ import annotations

import json

from cli_runner import EXAMPLE_RUN, run

import valuechain


def test_runs_lists_the_run_with_its_parity_identity(example_store: str) -> None:
    result = run("--store", example_store, "runs", "--format", "json")
    assert result.exit_code == 0
    (row,) = json.loads(result.output)
    assert row["run_id"] == EXAMPLE_RUN
    assert row["included_trials"] == 7 and row["total_trials"] == 8
    assert row["config_revision"] == "cr_0007"
    assert row["materialization_state"] == "final"


def test_runs_csv_writes_list_columns_as_json(example_store: str) -> None:
    result = run("--store", example_store, "runs", "--format", "csv")
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()[:2]
    assert "conflicting_identity" in header and EXAMPLE_RUN in row


def test_funnel_json_is_the_stored_document(example_store: str) -> None:
    result = run("--store", example_store, "funnel", EXAMPLE_RUN, "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["runId"] == EXAMPLE_RUN and document["stageAnalyzerVersion"] == 12
    with valuechain.open(example_store, read_only=True) as store:
        stored = store.analytics_document(EXAMPLE_RUN)
    assert stored is not None and json.loads(stored.to_json()) == document


def test_funnel_table_never_shows_a_zero_for_not_measured(example_store: str) -> None:
    result = run("--store", example_store, "funnel", EXAMPLE_RUN, "--slice", "model")
    assert result.exit_code == 0
    assert "excluded lifecycle 1" in result.output


def test_missing_run_and_unmeasured_run_say_different_things(example_store: str) -> None:
    missing = run("--store", example_store, "funnel", "no-such-run")
    assert missing.exit_code == 1 and "no such run" in missing.output
    with valuechain.open(example_store) as store:
        store.sql("DELETE FROM core.analytics_documents")
    unmeasured = run("--store", example_store, "funnel", EXAMPLE_RUN)
    assert unmeasured.exit_code == 0
    assert "UNMEASURED" in unmeasured.output and "no such run" not in unmeasured.output
    as_json = run("--store", example_store, "funnel", EXAMPLE_RUN, "--format", "json")
    assert as_json.exit_code == 1 and "unmeasured" in as_json.output


def test_materialize_rebuilds_every_document(example_store: str) -> None:
    result = run("--store", example_store, "materialize")
    assert result.exit_code == 0 and "materialized" in result.output
    producer = run(
        "--store", example_store, "funnel", EXAMPLE_RUN, "--chains", "producer", "--format", "json"
    )
    assert producer.exit_code == 0 and json.loads(producer.output)["runId"] == EXAMPLE_RUN


def test_schema_is_generated_from_the_model() -> None:
    result = run("schema", "stage-analytics")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["$schema"].endswith("2020-12/schema")
    assert "includedTrials" in json.dumps(schema)
