"""`valuechain compare`: the document (golden), the 80-column table, `--fail-on` exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_runner import red_line, run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "query"))

from compare_runs import every_change_runs, import_runs, run_requests

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures/golden/compare_every_change"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-compare") / "compare.duckdb"
    runs = every_change_runs()
    runs["run-same"] = run_requests("run-same")
    runs["run-twin"] = run_requests("run-twin")
    runs["run-worse"] = run_requests("run-worse", failures=True)
    runs["run-lonely"] = run_requests("run-lonely", run_keys={"mcp.app.run.group_id": None})
    import_runs(path, runs)
    return path


def test_the_compare_document_is_golden(store: Path, update_golden: bool) -> None:
    result = run("--store", store, "compare", "run-before", "run-after", "--format", "json")
    assert result.exit_code == 0, result.output
    golden = GOLDEN / "comparison.json"
    if update_golden:
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8")
    document = json.loads(result.stdout)
    assert list(document) == [
        "a", "b", "blockers", "comparable", "unmeasured", "forced", "stages", "cases"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("run-same", "run-twin", "--fail-on", "regression"), 0),
        (("run-worse", "run-same", "--fail-on", "regression"), 0),  # B got better
        (("run-same", "run-worse", "--fail-on", "regression"), 3),
        (("run-before", "run-after", "--fail-on", "regression"), 3),  # one regressed case
        (("run-same", "run-worse"), 0),  # without the gate a regression is only shown
        (("run-same", "run-lonely", "--fail-on", "regression"), 1),  # nothing compared
        (("run-same", "nope", "--fail-on", "regression"), 1),
        (("run-same", "run-twin", "--fail-on", "anything"), 2),
        (("run-same",), 2),
    ],
)
def test_fail_on_exit_codes(store: Path, args: tuple[str, ...], code: int) -> None:
    result = run("--store", store, "compare", *args)
    assert result.exit_code == code, result.output
    if code == 3:
        assert result.stderr.startswith("regression: ")
    if code == 1:
        assert red_line(result)


def test_a_run_compared_with_itself_warns(store: Path) -> None:
    result = run("--store", store, "compare", "run-same", "run-same")
    assert result.exit_code == 0
    assert result.stderr.startswith("warning: run-same is on both sides")
    assert "compared with itself" in result.stderr


def test_a_blocked_pair_leads_with_its_blockers(store: Path) -> None:
    result = run("--store", store, "compare", "run-same", "run-lonely", "--format", "json")
    document = json.loads(result.stdout)
    assert document["blockers"] == ["missingRunGroup"] and document["comparable"] is False
    assert document["cases"] is None and all(s["delta"] is None for s in document["stages"])
    table = run("--store", store, "compare", "run-same", "run-lonely").stdout
    assert table.index("NOT COMPARABLE") < table.index("blocker: missingRunGroup")
    assert "--force lists them" in table and "cases, A → B" not in table
    forced = run("--store", store, "compare", "run-same", "run-lonely", "--force").stdout
    assert "NOT A COMPARISON CLAIM" in forced


def test_the_table_fits_80_columns(store: Path) -> None:
    result = run("--store", store, "compare", "run-same", "run-worse")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "comparable: no parity blocker" in result.stdout
    assert any(line.startswith("regressed  ") for line in lines)
