"""Stores that hold no eval run, or only part of one, say so (issue 12 points 2 and 6).

Plain OpenTelemetry traces form source-only runs (TRACE-FORMAT §3.8): `runs` says in one line
that the store holds no eval run and what it holds; `funnel` and `trial` say "no eval run in
this store" with a hint; no cell reads ∅ where a reason fits. A run the store holds only part
of reads "n of m trials in the store" (§5.2 `W_RUN_INCOMPLETE_IN_EXPORT`), its producer's
pending/skipped trials counted apart, its materialization state as the producer supplied it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import EXAMPLE, EXAMPLE_RUN, red_line, run

import valuechain

PLAIN = "conformance/otlp/04_jaeger_cassandra_otel_traces_01_links_events.json"
OTHER_PLAIN = "conformance/otlp/01_otel-proto_examples_trace.json"


def _spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _attr(span: dict[str, Any], key: str) -> Any:
    return next((a["value"] for a in span.get("attributes", []) if a["key"] == key), None)


def _partial_example(shared: Path, keep: int, skipped: int) -> dict[str, Any]:
    """The spec example with only its first ``keep`` traces; ``skipped`` of them marked so."""
    doc = copy.deepcopy(json.loads((shared / EXAMPLE).read_text()))
    traces = list(dict.fromkeys(s["traceId"] for s in _spans(doc)))[:keep]
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            ss["spans"] = [s for s in ss["spans"] if s["traceId"] in traces]
    roots = [s for s in _spans(doc) if _attr(s, "mcp.app.span.role") == {"stringValue": "trial"}]
    for root in roots[:skipped]:
        for a in root["attributes"]:
            if a["key"] == "mcp.app.trial.status":
                a["value"] = {"stringValue": "skipped"}
    return doc


@pytest.fixture
def plain_store(tmp_path: Path, shared: Path) -> str:
    path = str(tmp_path / "plain.duckdb")
    assert run("--store", path, "import", shared / PLAIN).exit_code == 0
    return path


@pytest.mark.usefixtures("wide")
def test_runs_of_plain_traces_say_the_store_holds_no_eval_run(plain_store: str) -> None:
    result = run("--store", plain_store, "runs")
    assert result.exit_code == 0
    assert "no eval run in this store: it holds 1 trace and 1 span of plain" in result.output
    assert "not an eval run: no suite id" in result.output
    assert "no funnel: not an eval run" in result.output
    assert "∅" not in result.output
    rows = json.loads(run("--store", plain_store, "runs", "--format", "json").output)
    assert [r["eval_run"] for r in rows] == [False]  # json carries rows only, no prose


def test_an_empty_store_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    valuechain.open(path).close()
    result = run("--store", path, "runs")
    assert result.exit_code == 0
    assert "holds no trace yet" in result.output and "valuechain import" in result.output


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
@pytest.mark.parametrize("which", ["unknown-run", "source-run"])
def test_funnel_of_a_store_without_eval_runs_says_so(
    plain_store: str, fmt: str, which: str
) -> None:
    run_id = (
        "nope"
        if which == "unknown-run"
        else valuechain.open(plain_store, read_only=True).runs()["run_id"][0]
    )
    result = run("--store", plain_store, "funnel", run_id, "--format", fmt)
    assert result.exit_code == 1
    line = red_line(result)
    assert "no eval run in this store" in line and "hint: it holds 1 trace and 1 span" in line


@pytest.mark.usefixtures("wide")
def test_trial_of_a_plain_trace_says_it_is_not_an_eval_run(plain_store: str) -> None:
    (trial_id,) = valuechain.open(plain_store, read_only=True).sql("SELECT trial_id FROM trials")[
        "trial_id"
    ]
    result = run("--store", plain_store, "trial", trial_id)
    assert result.exit_code == 0
    assert "not an eval run: no suite id" in result.output
    assert "no eval run in this store" in result.output and "∅" not in result.output
    as_json = json.loads(run("--store", plain_store, "trial", trial_id, "--format", "json").output)
    assert as_json["evalRun"] is False
    missing = run("--store", plain_store, "trial", "nope")
    assert missing.exit_code == 1
    assert "no eval run in this store either" in red_line(missing)


@pytest.mark.usefixtures("wide")
def test_a_source_run_beside_eval_runs_reads_not_an_eval_run(
    example_store: str, shared: Path
) -> None:
    assert run("--store", example_store, "import", shared / OTHER_PLAIN).exit_code == 0
    source_run = next(
        r
        for r in valuechain.open(example_store, read_only=True).runs()["run_id"]
        if r != EXAMPLE_RUN
    )
    table = run("--store", example_store, "funnel", source_run)
    assert table.exit_code == 0
    assert "UNMEASURED" in table.output and f"run {source_run} is not an eval run" in table.output
    as_json = run("--store", example_store, "funnel", source_run, "--format", "json")
    assert as_json.exit_code == 1 and "not an eval run: no suite id" in red_line(as_json)
    listing = run("--store", example_store, "runs")
    assert "1 of 2 runs are not eval runs" in listing.output


@pytest.mark.usefixtures("wide")
@pytest.mark.parametrize(
    ("keep", "skipped", "in_store", "missing_words"),
    [
        (3, 0, "3 of 8 (5 missing)", "3 of 8 trials in the store (5 missing"),
        (5, 2, "5 of 8 (3 missing)", "5 of 8 trials in the store (3 missing"),
        (8, 1, "8 of 8", "8 of 8 trials in the store; marked by the producer: 1 skipped"),
    ],
)
def test_a_partial_run_reads_n_of_m_trials_in_the_store(
    tmp_path: Path,
    shared: Path,
    keep: int,
    skipped: int,
    in_store: str,
    missing_words: str,
) -> None:
    path, export = tmp_path / "partial.duckdb", tmp_path / "partial.json"
    export.write_text(json.dumps(_partial_example(shared, keep, skipped)))
    assert run("--store", path, "import", export).exit_code == 0
    (row,) = json.loads(run("--store", path, "runs", "--format", "json").output)
    assert (row["trials_in_store"], row["trials_expected"]) == (keep, 8)
    assert (row["trials_missing"], row["trials_skipped"]) == (8 - keep, skipped)
    assert row["materialization_state"] == "final"  # as the producer supplied it
    assert in_store in run("--store", path, "runs").output
    funnel = run("--store", path, "funnel", EXAMPLE_RUN)
    assert missing_words in funnel.output
    with valuechain.open(path, read_only=True) as store:
        issues = store.sql("SELECT code, message FROM trial_issues")
    incomplete = issues.filter(issues["code"] == "W_RUN_INCOMPLETE_IN_EXPORT")["message"]
    if keep < 8:
        (message,) = incomplete
        assert f"({8 - keep} missing)" in message and f"{skipped} of those" in message
    else:
        assert incomplete.is_empty()
