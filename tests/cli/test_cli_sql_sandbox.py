"""``valuechain sql`` reads the store and nothing else; each refusal is one red line."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import red_line, run
from sandbox_cases import CHANGES, ESCAPES, outside_files, snapshot

from valuechain.store import Database


def _span_count(store: Path) -> int:
    with Database(store, read_only=True) as db:
        row = db.fetch_one("SELECT count(*) FROM core.spans")
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(("name", "query", "fragment"), ESCAPES, ids=[e[0] for e in ESCAPES])
def test_sql_reaches_nothing_beyond_the_store(
    filled: Path, tmp_path: Path, name: str, query: str, fragment: str
) -> None:
    names = outside_files(tmp_path / "outside")
    before, spans = snapshot(tmp_path / "outside"), _span_count(filled)
    result = run("--store", filled, "sql", query.format(**names), "--format", "csv")
    assert result.exit_code == 1
    line = red_line(result)
    assert fragment in line and "hunter2" not in result.output
    assert snapshot(tmp_path / "outside") == before
    assert _span_count(filled) == spans


@pytest.mark.parametrize(("query", "fragment"), CHANGES, ids=[c[0] for c in CHANGES])
def test_sql_changes_nothing(filled: Path, query: str, fragment: str) -> None:
    spans = _span_count(filled)
    result = run("--store", filled, "sql", query)
    assert result.exit_code == 1
    line = red_line(result)
    assert fragment in line and "the store is opened read-only here" in line
    assert _span_count(filled) == spans


@pytest.mark.parametrize(
    "query",
    ["SELEC 1", "SELECT * FROM no_such_view", "SELECT no_such_column FROM spans"],
)
def test_a_read_that_fails_says_nothing_about_read_only(filled: Path, query: str) -> None:
    result = run("--store", filled, "sql", query)
    assert result.exit_code == 1
    line = red_line(result)
    assert "read-only" not in line and "SHOW TABLES" in line


def test_allow_files_opens_one_folder_for_reading(filled: Path, tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "cases.csv").write_text("case,n\na,1\nb,2\n")
    names = outside_files(tmp_path / "outside")
    query = f"SELECT sum(n) AS n FROM read_csv('{allowed}/cases.csv')"
    refused = run("--store", filled, "sql", query)
    assert refused.exit_code == 1 and "--allow-files" in red_line(refused)
    opened = run("--store", filled, "sql", query, "--allow-files", allowed, "--format", "csv")
    assert opened.exit_code == 0, opened.output
    assert opened.stdout == "n\n3\n"
    outside = run(
        "--store",
        filled,
        "sql",
        f"SELECT * FROM read_text('{names['secret_csv']}')",
        "--allow-files",
        allowed,
    )
    assert outside.exit_code == 1 and "hunter2" not in outside.output
    missing = run("--store", filled, "sql", "SELECT 1", "--allow-files", tmp_path / "nope")
    assert missing.exit_code == 2  # click: the folder does not exist


def test_a_store_changed_behind_the_verbs_is_one_red_line(filled: Path) -> None:
    with Database(filled) as db:  # what another DuckDB client could do
        db.con.execute("DELETE FROM core.spans WHERE source_id = 2")
    for command in (("runs",), ("sql", "SELECT 1"), ("import", filled)):
        result = run("--store", filled, *command)
        assert result.exit_code == 1
        line = red_line(result)
        assert "other.json lists 1 span, 0 stored" in line and "import the sources again" in line
