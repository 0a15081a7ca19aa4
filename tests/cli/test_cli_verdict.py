"""`valuechain verdict`: the document and its renderings (golden), JUnit shape, `--fail-on`
exit codes, `--policy` files, paging, and the generated schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from cli_runner import red_line, run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "materialize"))

from verdict_runs import V2, import_runs, run_requests

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures/golden/verdict_failed_case"
RESULT = "mcp.app.trial.result"
EVERY_PASS = {(c, r): {RESULT: "passed"} for c in range(4) for r in range(2)}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-verdict") / "verdict.duckdb"
    failing = {**EVERY_PASS, (1, 0): {RESULT: "failed"}, (1, 1): {RESULT: "failed"}}
    runs = {
        "run-failed": run_requests("run-failed", failing, V2),
        "run-passed": run_requests("run-passed", EVERY_PASS, V2),
        "run-open": run_requests("run-open", EVERY_PASS, {**V2, "mcp.app.run.status": "running"}),
        "run-inconclusive": run_requests(
            "run-inconclusive", {**EVERY_PASS, (0, 0): {"mcp.app.trial.status": "cancelled"}}, V2
        ),
        "run-many": run_requests(
            "run-many",
            {
                (c, r): {RESULT: "failed" if r == 0 else "passed"}
                for c in range(30)
                for r in range(2)
            },
            V2,
            cases=30,
        ),
    }
    import_runs(path, runs)
    return path


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("json", "summary.json"), ("markdown", "summary.md"), ("junit", "summary.xml")],
)
def test_renderings_are_golden(store: Path, update_golden: bool, fmt: str, name: str) -> None:
    result = run("--store", store, "verdict", "run-failed", "--format", fmt)
    assert result.exit_code == 0, result.output
    golden = GOLDEN / name
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8")


def test_the_json_is_the_decision_summary(store: Path) -> None:
    document = json.loads(run("--store", store, "verdict", "run-failed", "--format", "json").stdout)
    assert list(document) == [
        "schemaVersion",
        "runId",
        "runStatus",
        "verdict",
        "verdictSource",
        "counts",
        "decision",
        "diagnostics",
    ]
    assert document["counts"]["measurementUnit"] == "caseVariant"
    assert [i["result"] for i in document["diagnostics"]["items"]] == ["failed", "failed"]


def _check_junit(text: str) -> ET.Element:
    """The common JUnit XML shape (the Jenkins/Surefire schema CI systems read)."""
    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    for suite in root:
        assert suite.tag == "testsuite"
        assert {"name", "tests", "failures", "errors"} <= suite.attrib.keys()
        cases = [c for c in suite if c.tag == "testcase"]
        assert {c.tag for c in suite} <= {"testcase", "system-out", "system-err", "properties"}
        assert int(suite.get("tests", "-1")) == len(cases)
        outcomes = {"failure": 0, "error": 0, "skipped": 0}
        for case in cases:
            assert {"name", "classname"} <= case.attrib.keys()
            float(case.get("time", "0"))
            children = [c.tag for c in case]
            assert set(children) <= {"failure", "error", "skipped", "system-out", "system-err"}
            marks = [t for t in children if t in outcomes]
            assert len(marks) <= 1
            for mark in marks:
                outcomes[mark] += 1
                assert "message" in case.find(mark).attrib  # type: ignore[union-attr]
        assert int(suite.get("failures", "-1")) == outcomes["failure"]
        assert int(suite.get("errors", "-1")) == outcomes["error"]
        assert int(suite.get("skipped", "0")) == outcomes["skipped"]
    return root


@pytest.mark.parametrize(
    ("run_id", "failures", "skipped"),
    [("run-failed", 2, 0), ("run-passed", 0, 0), ("run-open", 0, 1), ("run-inconclusive", 0, 1)],
)
def test_junit_has_the_common_shape(store: Path, run_id: str, failures: int, skipped: int) -> None:
    root = _check_junit(run("--store", store, "verdict", run_id, "--format", "junit").stdout)
    suite = root[0]
    assert (int(suite.get("failures", "0")), int(suite.get("skipped", "0"))) == (failures, skipped)
    assert suite[0].get("name") == "run verdict"  # the run's own verdict comes first


@pytest.mark.parametrize(
    ("run_id", "fail_on", "code"),
    [
        ("run-failed", "failed", 3),
        ("run-failed", "failed,inconclusive", 3),
        ("run-passed", "failed,inconclusive", 0),
        ("run-inconclusive", "failed,inconclusive", 3),
        ("run-open", "failed,inconclusive", 0),  # no decision is not a failure
        ("run-open", "notEstablished", 3),
    ],
)
def test_fail_on_exit_codes(store: Path, run_id: str, fail_on: str, code: int) -> None:
    result = run("--store", store, "verdict", run_id, "--fail-on", fail_on)
    assert result.exit_code == code, result.output


def test_usage_and_errors(store: Path) -> None:
    assert run("--store", store, "verdict", "run-failed", "--fail-on", "broken").exit_code == 2
    missing = run("--store", store, "verdict", "nobody")
    assert missing.exit_code == 1 and "no such run" in red_line(missing)
    bad_page = run("--store", store, "verdict", "run-many", "--page", "vc1.nonsense")
    assert bad_page.exit_code == 1 and "--page" in red_line(bad_page)


def test_pages(store: Path) -> None:
    first = json.loads(run("--store", store, "verdict", "run-many", "--format", "json").stdout)
    diagnostics = first["diagnostics"]
    assert (diagnostics["complete"], diagnostics["scannedIterations"]) == (False, 50)
    table = run("--store", store, "verdict", "run-many").stdout
    assert f"--page {diagnostics['nextCursor']}" in table.replace("\n", "")
    second = run(
        "--store",
        store,
        "verdict",
        "run-many",
        "--page",
        diagnostics["nextCursor"],
        "--format",
        "json",
    )
    page = json.loads(second.stdout)["diagnostics"]
    assert (page["complete"], page["scannedIterations"], "nextCursor" in page) == (False, 10, False)
    ids = [i["iterationId"] for i in diagnostics["items"] + page["items"]]
    assert len(ids) == len(set(ids)) == 30


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_suggested_commands_read_the_store_named(store: Path, fmt: str) -> None:
    """The next page and the trials to look at are suggested on the store the command line
    named (issue 41.5: hints keep the user's --store)."""
    text = run("verdict", "run-many", "--format", fmt, "--store", store).stdout
    flat = " ".join(text.split())
    named = f"valuechain --store {store} "
    assert f"{named}verdict run-many --page" in flat
    if fmt == "table":
        assert f"{named}trial " in flat and f"{named}trials run-many" in flat


def test_the_table_says_what_it_counted(store: Path) -> None:
    out = run("--store", store, "verdict", "run-inconclusive").stdout
    assert "INCONCLUSIVE" in out
    assert "unit caseVariant" in out and "unit trial" in out
    assert out.index("configuredTrialsNotAttempted") < out.index("diagnostics:")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("policy.toml", "min_eligible_trials = 7\ndefault_pass_threshold = 0.5\n"),
        ("policy.json", '{"minEligibleTrials": 7, "maxEvaluatorErrorRate": 0.2}'),
    ],
)
def test_a_policy_file(store: Path, tmp_path: Path, name: str, text: str) -> None:
    policy = tmp_path / name
    policy.write_text(text, encoding="utf-8")
    result = run(
        "--store", store, "verdict", "run-inconclusive", "--policy", policy, "--format", "json"
    )
    decision = json.loads(result.stdout)["decision"]
    assert decision["validity"]["policy"]["coverage"] == {
        "kind": "minEligibleTrials",
        "minEligibleTrials": 7,
    }
    assert decision["verdict"] == "passed"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"minCompletionRate": 80}', "minCompletionRate"),
        ('{"minEligibleTrials": 0}', "minEligibleTrials"),
        ('{"minEligibleTrial": 1}', "minEligibleTrial"),
        ('{"minCompletionRate": true}', "minCompletionRate"),
        ("not json", "not valid JSON"),
    ],
)
def test_a_bad_policy_file_names_the_key(
    store: Path, tmp_path: Path, text: str, problem: str
) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(text, encoding="utf-8")
    result = run("--store", store, "verdict", "run-failed", "--policy", policy)
    assert result.exit_code == 1
    line = red_line(result)
    assert str(policy) in line and problem in line


@pytest.mark.parametrize(
    ("name", "schema_id"),
    [
        ("verdict-policy", "urn:valuechain:schema:verdict-policy-file:v1"),
        ("decision-summary", "https://mcpjam.com/schemas/eval-run-decision-summary/v1.json"),
    ],
)
def test_schemas_are_generated(name: str, schema_id: str) -> None:
    result = run("schema", name)
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert schema["$id"] == schema_id
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    if name == "verdict-policy":
        assert schema["additionalProperties"] is False
        assert set(schema["properties"]) == {
            "minEligibleTrials",
            "minCompletionRate",
            "maxEvaluatorErrorRate",
            "defaultPassThreshold",
            "casePassThresholds",
        }
