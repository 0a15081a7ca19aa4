"""``valuechain recompute``: one line when nothing is stale, a preview, the refusals."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cli_runner import EXAMPLE, EXAMPLE_RUN, red_line, run

import valuechain
from valuechain.report.runs import runs_table
from valuechain.store import Database


@pytest.fixture
def store_at_11(tmp_path: Path, shared: Path) -> str:
    """The spec example export, imported with the previous analyzer."""
    path = str(tmp_path / "s11.duckdb")
    result = run("--store", path, "import", "--analyzer", "11", shared / EXAMPLE)
    assert result.exit_code == 0, result.output
    return path


def test_nothing_stale_says_so_in_one_line(example_store: str) -> None:
    result = run("--store", example_store, "recompute")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "nothing to recompute: every derived chain is at analyzer 12 or newer and was "
        "derived from the evidence stored now"
    ]


@pytest.mark.usefixtures("wide")
def test_dry_run_previews_and_changes_nothing(store_at_11: str) -> None:
    preview = run("--store", store_at_11, "recompute", "--dry-run", "--prune")
    assert preview.exit_code == 0, preview.output
    lines = preview.output.splitlines()
    assert lines[0] == (
        "would re-derive 8 trials in 1 run at analyzer 12 (1 batch): 8 trials behind it, "
        "0 traces whose evidence changed"
    )
    assert lines[1] == f"runs: {EXAMPLE_RUN}"
    assert lines[-1] == "dry run: nothing was changed"
    again = run("--store", store_at_11, "recompute", "--dry-run")
    assert again.output == preview.output  # nothing was written in between

    done = run("--store", store_at_11, "recompute", "--prune")
    assert done.exit_code == 0, done.output
    assert "8 documents" not in done.output
    assert done.output.splitlines()[-1] == "pruned the analyzer 11 chains of 8 trials in 1 run"
    with Database(store_at_11, read_only=True) as db:
        versions = db.con.execute(
            "SELECT DISTINCT analyzer_version FROM core.stage_chain WHERE source = 'derived'"
        ).fetchall()
    assert versions == [(12,)]


def test_runs_shows_document_versions_and_staleness(store_at_11: str) -> None:
    def listing() -> tuple[object, object]:
        result = run("--store", store_at_11, "runs", "--format", "json")
        assert result.exit_code == 0, result.output
        (row,) = orjson.loads(result.output)
        return row["document_analyzer_versions"], row["stale"]

    assert listing() == ([11], True)
    run("--store", store_at_11, "recompute")
    assert listing() == ([11, 12], False)


def test_an_unknown_run_and_a_newer_analyzer_are_one_red_line(example_store: str) -> None:
    unknown = run("--store", example_store, "recompute", "--runs", "run_nope")
    assert unknown.exit_code == 1
    assert "run run_nope: no such run in this store" in red_line(unknown)
    with Database(example_store) as db:
        db.con.execute("UPDATE core.stage_chain SET analyzer_version = 13 WHERE source = 'derived'")
    ahead = run("--store", example_store, "recompute")
    assert ahead.exit_code == 1
    assert "newer than this valuechain's analyzer (12)" in red_line(ahead)


def test_runs_says_a_run_at_an_older_analyzer_needs_a_recompute(store_at_11: str) -> None:
    def cells() -> tuple[str, str]:
        with valuechain.open(store_at_11, read_only=True) as store:
            (row,) = runs_table(store.run_rows())
        return row["trials in/total"], row["documents"]

    assert cells() == ("older analyzer only: run valuechain recompute", "11 stale")
    run("--store", store_at_11, "recompute")
    assert cells() == ("7/8", "11,12")  # the example has one excluded trial
