"""Every read verb works on a store imported from MCPJam SDK results (issue 39.1): runs, funnel,
trial, verify, verdict, coverage, compare, trend — each exits 0 and says something about the
SDK runs it read, not just that it ran."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import run

SDK = Path(__file__).resolve().parents[2] / "fixtures" / "producers" / "mcpjam-sdk" / "repo-6d550c0"
SUITE_A = "sdk-1796646164248-awth05e3"
SUITE_B = "sdk-1796646165846-my3q45lo"
REPORTER = "sdk-1796646167483-5kmfwhqu"


@pytest.fixture(scope="module")
def sdk_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("sdk") / "s.duckdb"
    bodies = [
        *sorted((SDK / "captured").glob("suite-model-*/0*.json")),
        *sorted((SDK / "captured" / "reporter").glob("0*.json")),
    ]
    result = run("--store", store, "import", *bodies)
    assert result.exit_code == 0, result.output
    return store


def ok(*args: str | Path) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.usefixtures("wide")
def test_every_verb_reads_the_sdk_runs(sdk_store: Path) -> None:
    s = ("--store", sdk_store)
    runs = ok(*s, "runs")
    assert all(r in runs for r in (SUITE_A, SUITE_B, REPORTER))
    assert "30/30" in runs and "12/12" in runs
    funnel = ok(*s, "funnel", SUITE_A)
    assert "Selection" in funnel and "User value" in funnel
    trial = ok(*s, "trial", f"{SUITE_A}-19")  # tool-throws, repetition 0: stops at Tool call
    assert "where value stopped: call" in trial
    verify = ok(*s, "verify")
    assert "72 MCPJam SDK trials carry the SDK's own verdict (passed); 63 agree" in verify
    assert f"run {REPORTER}: 12 trials, 9 agree, 3 disagree" in verify
    verdict = ok(*s, "verdict", SUITE_A)
    assert "decided under verdict policy v2" in verdict and "c_flaky" in verdict
    coverage = ok(*s, "coverage")
    assert "noToolErrors" in coverage and "Connection" in coverage
    compare = ok(*s, "compare", SUITE_A, SUITE_B)
    assert "NOT COMPARABLE" in compare and "blocker: missingRunGroup" in compare
    assert "ci.pipelineId" in compare
    trend = ok(*s, "trend")
    assert f"{REPORTER}: missingRunGroup" in trend and "ci.pipelineId" in trend


def test_fail_on_regression_names_the_sdk_option_that_lifts_the_blocker(sdk_store: Path) -> None:
    result = run("--store", sdk_store, "compare", SUITE_A, SUITE_B, "--fail-on", "regression")
    assert result.exit_code == 1, result.output
    error = " ".join(result.stderr.split())  # as wrapped for the terminal
    assert "not comparable (missingRunGroup" in error
    assert "hint: MCPJam SDK: set ci.pipelineId in the reporting config" in error
    assert "compare final runs that share run group" not in error
