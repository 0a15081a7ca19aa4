"""The ``coverage`` verb end to end: table, JSON, the lint, its errors (store: the spec example)."""

from __future__ import annotations

import orjson
import pytest
from cli_runner import EXAMPLE_RUN, red_line, run

import valuechain
from valuechain.contract.coverage import SuiteCoverage
from valuechain.report.coverage import coverage_json

SUITE = "s_Wx8pQ2mN4r"


def test_json_is_the_coverage_document(example_store: str) -> None:
    result = run("--store", example_store, "coverage", "--format", "json")
    assert result.exit_code == 0, result.output
    (doc,) = orjson.loads(result.stdout)
    SuiteCoverage.model_validate(doc)
    assert (doc["suiteId"], doc["runId"]) == (SUITE, EXAMPLE_RUN)
    by_stage = {link["stage"]: link for link in doc["links"]}
    assert by_stage["call"]["checkKinds"] == ["toolCalls:arguments"]  # partial matching
    assert by_stage["userValue"]["checkKinds"] == [
        "finalAssistantMessageNonEmpty", "judge:goalCompletion", "responseContains"
    ]  # fmt: skip
    with valuechain.open(example_store, read_only=True) as store:
        assert result.stdout_bytes == coverage_json(store.coverage())


@pytest.mark.parametrize("args", [("--suite", SUITE), ("--run", EXAMPLE_RUN)])
def test_a_suite_or_a_run_reads_the_same_run(example_store: str, args: tuple[str, str]) -> None:
    result = run("--store", example_store, "coverage", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    assert [d["runId"] for d in orjson.loads(result.stdout)] == [EXAMPLE_RUN]


def test_table_names_who_decides_each_link(example_store: str, wide: None) -> None:
    result = run("--store", example_store, "coverage")
    assert result.exit_code == 0, result.output
    assert f"suite {SUITE} · run {EXAMPLE_RUN} · 8 trials" in result.output
    assert "Connection: the runner decides it" in result.output
    assert "Selection: decided by toolCalls:match, toolNeverCalled" in result.output
    assert "lint" not in result.output


def test_lint_of_a_clean_suite_is_empty(example_store: str) -> None:
    result = run("--store", example_store, "coverage", "--lint", "--format", "json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout) == []
    table = run("--store", example_store, "coverage", "--lint")
    assert table.exit_code == 0 and "lint: no finding" in table.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--suite", SUITE, "--run", EXAMPLE_RUN), "--suite and --run: name one or the other"),
        (("--run", "nope"), "--run nope: no eval run with this id in the store"),
        (("--suite", "nope"), "--suite nope: no eval run of this suite in the store"),
    ],
)
def test_errors_are_one_red_line(example_store: str, args: tuple[str, ...], message: str) -> None:
    result = run("--store", example_store, "coverage", *args)
    assert result.exit_code == 1
    assert message in red_line(result)
