"""Two reports of one suite compare when their identities match, and are blocked by the right
blockers when they do not (CONTRACT §5.11; docs/spec/mcpjam-sdk.md §3), end to end from SDK bodies.

The captured reports carry no `ci` block, so they lack a run group (`missingRunGroup`, and
compare / trend name the SDK option that supplies it). Regenerating them with `ci` set needs a
node run; instead each test copies a captured body and changes only what the SDK would have
written differently — byte for byte the same otherwise:

- `with_ci`: the `ci` object the caller passed (`MCPJamReportingConfig.ci`; the SDK reads no CI
  variable itself), placed where the report body puts it — after `framework` (6d550c0
  sdk/src/report-eval-results.ts:1022, 1.14.0 src/report-eval-results.ts:765), keys in the
  caller's order (JSON.stringify), here the SDK docs' GitHub example
  (docs/sdk/concepts/saving-results.mdx:171–186).
- `rerun`: another run of the same suite — a new `externalRunId` (`sdk-<ms>-<random>`, generated
  per run when unset, report-eval-results.ts:1000) and the iteration ids the SDK derives from
  it (`<externalRunId>-<n>`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import valuechain
from valuechain.contract.compare import RunComparison
from valuechain.query.producer_hints import SDK_IDENTITY_HINTS

PRODUCERS = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
REPORTS = {
    "1.14.0": "1.14.0/captured/suite-model-{}/001-sdk_v1_evals_report.json",
    "6.x": "repo-6d550c0/captured/suite-model-{}/"
    "001-api_v1_projects_default_eval-ingest_report.json",
}
CI = {
    "provider": "github",
    "branch": "main",
    "commitSha": "0123456789abcdef0123456789abcdef01234567",
    "runUrl": "https://github.com/example/server/actions/runs/42",
    "pipelineId": "evals",
    "jobId": "eval",
}


def captured(generation: str, model: str = "a") -> str:
    return (PRODUCERS / REPORTS[generation].format(model)).read_text()


def run_id(body: str) -> str:
    return str(json.loads(body)["externalRunId"])


def with_ci(body: str) -> str:
    framework = '"framework":"valuechain-fixture"'
    assert body.count(framework) == 1
    return body.replace(framework, framework + ',"ci":' + json.dumps(CI, separators=(",", ":")))


def rerun(body: str, new_id: str = "sdk-1796650000000-rerun0001") -> str:
    old = run_id(body)
    assert body.count(old) == 31  # the run and its 30 iterations
    return body.replace(old, new_id)


def compare(tmp_path: Path, a: str, b: str) -> RunComparison:
    files = []
    for name, body in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(body)
        files.append(tmp_path / name)
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths(files).ok
        return store.compare(run_id(a), run_id(b))


@pytest.mark.parametrize("generation", sorted(REPORTS))
def test_the_captured_reports_lack_only_a_run_group_and_compare_names_the_option(
    generation: str, tmp_path: Path
) -> None:
    a, b = captured(generation, "a"), captured(generation, "b")
    comparison = compare(tmp_path, a, b)
    # model-a and model-b: one suite, same cases, same evaluation config — the model is an
    # execution variant, not a parity identity — so the absent run group is the only blocker
    assert [x.value for x in comparison.blockers] == ["missingRunGroup"]
    assert not comparison.comparable and comparison.cases is None
    assert comparison.hints  # both sides are SDK runs without ci.pipelineId
    assert [(h.run_id, h.blocker.value) for h in comparison.hints] == [
        (run_id(a), "missingRunGroup"),
        (run_id(b), "missingRunGroup"),
    ]
    assert {h.hint for h in comparison.hints} == {SDK_IDENTITY_HINTS[comparison.blockers[0]]}
    assert "ci.pipelineId" in comparison.hints[0].hint


@pytest.mark.parametrize("generation", sorted(REPORTS))
def test_reports_whose_identities_match_compare(generation: str, tmp_path: Path) -> None:
    a = with_ci(captured(generation))
    comparison = compare(tmp_path, a, rerun(a))
    assert comparison.blockers == [] and comparison.comparable
    assert comparison.model_dump().get("hints") is None  # nothing lacks, nothing to hint
    changes = {c.title: c.change.value for c in comparison.cases or ()}
    assert changes["add-pass"] == "passed"
    assert changes["missing-call"] == "stillFailing"
    assert all(s.delta is not None for s in comparison.stages)


@pytest.mark.parametrize("generation", sorted(REPORTS))
def test_another_model_with_a_run_group_compares_as_changed_cases(
    generation: str, tmp_path: Path
) -> None:
    comparison = compare(
        tmp_path, with_ci(captured(generation, "a")), with_ci(captured(generation, "b"))
    )
    assert comparison.comparable
    # another execution variant is another configuration of each case: changed, never a
    # regression or a fix
    assert {c.change.value for c in comparison.cases or ()} == {"changed"}


def test_a_changed_evaluation_config_blocks_with_the_config_identity(tmp_path: Path) -> None:
    a = with_ci(captured("6.x"))
    old = json.loads(a)["evaluationConfigHash"]
    b = rerun(a).replace(
        f'"evaluationConfigHash":"{old}"', '"evaluationConfigHash":"' + "e" * 64 + '"'
    )
    assert [x.value for x in compare(tmp_path, a, b).blockers] == ["differentConfigIdentity"]


def test_a_changed_pass_criterion_blocks_a_1_14_report_by_config(tmp_path: Path) -> None:
    # 1.14.0 sends no evaluationConfigHash: the revision hashes passCriteria among the rest
    a = with_ci(captured("1.14.0"))
    b = rerun(a).replace(
        '"passCriteria":{"minimumPassRate":70}', '"passCriteria":{"minimumPassRate":90}'
    )
    assert [x.value for x in compare(tmp_path, a, b).blockers] == ["differentConfigIdentity"]


@pytest.mark.parametrize("generation", sorted(REPORTS))
def test_changed_cases_block_with_the_case_set_identity(generation: str, tmp_path: Path) -> None:
    a = with_ci(captured(generation))
    body = json.loads(rerun(a))
    body["results"] = [r for r in body["results"] if not r["caseTitle"].startswith("negative")]
    b = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    assert [x.value for x in compare(tmp_path, a, b).blockers] == ["differentCaseSetIdentity"]


def test_trend_names_the_option_for_sdk_runs_only(tmp_path: Path, shared: Path) -> None:
    files = [PRODUCERS / REPORTS["6.x"].format(m) for m in "ab"]
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths(
            [*files, shared / "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"]
        ).ok
        blocked = store.trend_blocked()
    hints = {r["run_id"]: r["hint"] for r in blocked.iter_rows(named=True)}
    sdk = {run_id(f.read_text()) for f in files}
    assert {r for r, h in hints.items() if h} == sdk
    assert all("ci.pipelineId" in hints[r] for r in sdk)
