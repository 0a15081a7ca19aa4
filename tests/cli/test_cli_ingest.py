"""``import``, ``sql`` and ``issues``: exit codes, the one red line, output formats."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest
from cli_runner import EXAMPLE, red_line, run

import valuechain
from valuechain.cli import app
from valuechain.store import Database

Write = Callable[[str, bytes | dict[str, Any]], Path]


# ---------------------------------------------------------------------------- import
def test_import_exit_code_zero_with_warnings(
    store: Path, otlp: SimpleNamespace, write: Write
) -> None:
    path = write("warn.json", otlp.request(otlp.span(1, kind=99), otlp.span(2, spanId="0x2")))
    result = run("--store", store, "import", path)
    assert result.exit_code == 0, result.output
    assert "1 source, 1 span, 1 trace, 2 issues" in result.stdout
    assert "W_UNKNOWN_ENUM 1" in result.stdout and "E_BAD_ID_ENCODING 1" in result.stdout
    assert result.stderr == ""


def test_import_exit_code_one_when_any_source_is_rejected(
    store: Path, otlp: SimpleNamespace, write: Write
) -> None:
    good = write("good.json", otlp.request(otlp.span(1)))
    bad = write("bad.json", b'[{"context": {"trace_id": "t"}, "span_kind": "LLM"}]')
    result = run("--store", store, "import", good, bad)
    assert result.exit_code == 1
    rejected = red_line(result, "rejected:")  # one source, one red line and its hint
    assert rejected.startswith(f"rejected: {bad}: ")
    assert "Phoenix" in rejected and " hint: " in rejected
    with Database(store, read_only=True) as db:
        assert db.sql("SELECT path FROM imports").to_series().to_list() == [str(good)]


def test_import_strict_flag(store: Path, otlp: SimpleNamespace, write: Write) -> None:
    path = write("err.json", otlp.request(otlp.span(1), otlp.span(2, traceId="")))
    assert run("--store", store, "import", "--strict", path).exit_code == 1
    with Database(store, read_only=True) as db:
        assert db.sql("SELECT count(*) FROM imports").item() == 0
    assert run("--store", store, "import", path).exit_code == 0
    again = run("--store", store, "import", "--strict", path)  # accepted with an error
    assert again.exit_code == 1
    assert "already in the store, accepted as ok with 1 error" in again.stderr


def test_import_salvage_flag(store: Path, otlp: SimpleNamespace, write: Write) -> None:
    data = otlp.dumps(otlp.request(otlp.span(1), otlp.span(2)))
    path = write("cut.json", data[:-40])
    plain = run("--store", store, "import", path)
    assert plain.exit_code == 1
    assert "E_TRUNCATED_JSON" not in plain.stderr  # the message, not the code, is for people
    assert "--salvage" in plain.stderr
    salvaged = run("--store", store, "import", "--salvage", path)
    assert salvaged.exit_code == 0
    assert "partial" in salvaged.stdout


def test_import_unchanged_on_second_run(store: Path, otlp: SimpleNamespace, write: Write) -> None:
    path = write("a.json", otlp.request(otlp.span(1)))
    assert run("--store", store, "import", path).exit_code == 0
    again = run("--store", store, "import", path)
    assert again.exit_code == 0
    assert "unchanged" in again.stdout


def test_import_says_which_files_of_a_directory_it_skipped(store: Path, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "data.json").write_bytes(b'{"resourceSpans":[]}')
    for n in range(7):
        (folder / f"notes-{n}.txt").write_text("x")
    result = run("--store", store, "import", "--no-derive", folder)
    assert result.exit_code == 0
    assert "skipped 7 files" in result.stdout
    assert "notes-0.txt" in result.stdout and "and 2 more" in result.stdout


def test_import_names_what_a_path_that_is_no_file_is(store: Path) -> None:
    result = run("--store", store, "import", "--no-derive", "/dev/zero")  # never reads it
    assert result.exit_code == 1
    rejected = red_line(result, "rejected:")
    said = "a character device (such as a terminal or /dev/zero), not a file"
    assert rejected.startswith(f"rejected: /dev/zero: {said}"), rejected
    assert "no such file" not in rejected
    assert "hint: pipe or redirect the export into /dev/stdin" in rejected


SRC = Path(__file__).resolve().parents[2] / "src"


def _cli(args: list[str], cwd: Path, stdin: Any) -> subprocess.CompletedProcess[bytes]:
    """The command line in a process of its own, standard input as given."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "80"}
    env.pop("VALUECHAIN_STORE", None)
    command = [sys.executable, "-m", "valuechain", *args]
    return subprocess.run(command, cwd=cwd, env=env, stdin=stdin, capture_output=True, check=False)


@pytest.mark.parametrize("how", ["redirected", "piped"])
def test_import_dash_reads_standard_input(tmp_path: Path, shared: Path, how: str) -> None:
    args = ["--store", "s.duckdb", "import", "--no-derive", "-"]
    if how == "redirected":
        with (shared / EXAMPLE).open("rb") as file:
            done = _cli(args, tmp_path, file)
    else:  # cat FILE | valuechain import -
        with subprocess.Popen(["cat", str(shared / EXAMPLE)], stdout=subprocess.PIPE) as cat:
            done = _cli(args, tmp_path, cat.stdout)
    assert done.returncode == 0, done.stderr.decode()
    assert "imported     72" in done.stdout.decode()


def test_a_missing_path_creates_no_store(tmp_path: Path) -> None:
    store = tmp_path / "new.duckdb"
    result = run("--store", store, "import", tmp_path / "nope.json")
    assert result.exit_code == 1
    assert "no such file" in red_line(result, "rejected:")
    assert not store.exists() and list(tmp_path.iterdir()) == []


def test_import_can_derive_with_analyzer_11(tmp_path: Path, shared: Path) -> None:
    store_path = str(tmp_path / "s.duckdb")
    result = run("--store", store_path, "import", "--analyzer", "11", shared / EXAMPLE)
    assert result.exit_code == 0, result.output
    with valuechain.open(store_path, read_only=True) as s:
        versions = s.sql(
            "SELECT DISTINCT analyzer_version FROM stage_chain WHERE source = 'derived'"
        )["analyzer_version"].to_list()
    assert versions == [11]


def test_trial_issue_ids_are_plain_lower_case_hex(tmp_path: Path, shared: Path) -> None:
    path = str(tmp_path / "c.duckdb")
    run(
        "--store", path, "import", shared / "conformance/otlp/02_tempo_vulture_trace_base64ids.json"
    )
    with valuechain.open(path, read_only=True) as store:
        ids = store.sql("SELECT DISTINCT trace_id FROM trial_issues WHERE trace_id IS NOT NULL")
    assert ids.height >= 1
    assert all(len(t) == 32 and t == t.lower() for t in ids["trace_id"].to_list())


# ---------------------------------------------------------------------------- sql
QUERY = (
    "SELECT s.span_id, s.start_time_unix_nano, s.start_time, a.double_value AS ratio, "
    "a.bytes_value AS blob_hex, c.span_id AS raw_span_id, 5 AS small "
    "FROM spans s JOIN core.spans c USING (span_row) "
    "LEFT JOIN attributes a ON a.span_id = s.span_id AND a.key IN ('ratio', 'blob') "
    "AND a.owner_type = 'span' "
    "WHERE s.source_id = 1 ORDER BY s.span_id, a.key DESC"
)


def test_sql_json_conventions(filled: Path) -> None:
    result = run("--store", filled, "sql", QUERY, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["span_id"] for r in rows] == [f"{1:016x}", f"{1:016x}", f"{2:016x}"]
    ratio, blob, far = rows
    assert ratio["ratio"] is None  # NaN → null
    assert blob["blob_hex"] == "0102ff"
    assert ratio["raw_span_id"] == f"{1:016x}"  # BLOB → lower-case hex
    assert ratio["start_time_unix_nano"] == "1700000000000001000"  # ns epochs exceed 2^53
    assert far["start_time_unix_nano"] == "11651379494838206464"
    assert far["start_time"] is None
    assert re.fullmatch(r"2023-11-14T22:13:20\.000001Z", ratio["start_time"])
    assert ratio["small"] == 5


def test_sql_json_integers_beyond_2_53_are_strings(filled: Path) -> None:
    result = run(
        "--store",
        filled,
        "sql",
        "SELECT 9007199254740991 AS safe, 9007199254740993 AS unsafe, -9007199254740993 AS neg, "
        "TIMESTAMPTZ '2024-05-01 18:41:34.721392+02' AS ts, 'Infinity'::DOUBLE AS inf",
        "--format",
        "json",
    )
    assert json.loads(result.stdout) == [
        {
            "safe": 9007199254740991,
            "unsafe": "9007199254740993",
            "neg": "-9007199254740993",
            "ts": "2024-05-01T16:41:34.721392Z",
            "inf": None,
        }
    ]


def test_sql_csv_and_parquet_outputs(filled: Path, tmp_path: Path) -> None:
    query = "SELECT span_id, name, kind FROM spans ORDER BY span_id"
    as_csv = run("--store", filled, "sql", query, "--format", "csv")
    assert as_csv.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [r["span_id"] for r in rows] == [f"{n:016x}" for n in (1, 2, 4)]
    csv_file, parquet_file, json_file = (
        tmp_path / "o.csv",
        tmp_path / "o.parquet",
        tmp_path / "o.json",
    )
    for fmt, target in (("csv", csv_file), ("parquet", parquet_file), ("json", json_file)):
        result = run("--store", filled, "sql", query, "--format", fmt, "--output", target)
        assert result.exit_code == 0
        assert result.stdout == ""
    assert csv_file.read_text() == as_csv.stdout
    frame = pl.read_parquet(parquet_file)
    assert frame.columns == ["span_id", "name", "kind"]
    assert frame["kind"].to_list() == [1, 42, 1]
    assert [r["name"] for r in json.loads(json_file.read_text())] == ["span-1", "span-2", "span-4"]


def test_sql_usage_errors_are_one_red_line(
    filled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad_sql = run("--store", filled, "sql", "SELECT * FROM no_such_view")
    assert bad_sql.exit_code == 1
    assert "no_such_view" in red_line(bad_sql)
    with monkeypatch.context() as terminal:
        terminal.setattr(app, "_stdout_is_terminal", lambda: True)
        parquet_to_terminal = run("--store", filled, "sql", "SELECT 1", "--format", "parquet")
    assert parquet_to_terminal.exit_code == 1
    assert "--output" in red_line(parquet_to_terminal) and "terminal" in red_line(
        parquet_to_terminal
    )
    two = run("--store", filled, "sql", "SELECT 1; SELECT 2")
    assert two.exit_code == 1 and two.stdout == ""
    assert "2 statements given; one at a time" in red_line(two)
    table_to_file = run("--store", filled, "sql", "SELECT 1", "--output", tmp_path / "t.txt")
    assert table_to_file.exit_code == 1
    assert "terminal" in red_line(table_to_file)
    missing = run("--store", tmp_path / "never.duckdb", "sql", "SELECT 1")
    assert missing.exit_code == 1
    assert "no store here yet" in red_line(missing)
    assert not (tmp_path / "never.duckdb").exists()


def test_sql_errors_keep_duckdb_s_own_help(filled: Path) -> None:
    typo = run("--store", filled, "sql", "SELECT * FROM span")
    assert typo.exit_code == 1
    assert 'Did you mean "spans"?' in red_line(typo)
    unfinished = run("--store", filled, "sql", "SELECT * FROM spans WHERE")
    assert unfinished.exit_code == 1
    lines = unfinished.stderr.splitlines()
    query = next(k for k, line in enumerate(lines) if "LINE 1: SELECT * FROM spans WHERE" in line)
    caret = lines[query + 1]  # under the position, as DuckDB put it
    assert caret.strip().startswith("^") and caret.index("^") == lines[query].index("WHERE")
    assert "hint:" in red_line(unfinished)


def test_sql_is_read_only(filled: Path) -> None:
    result = run("--store", filled, "sql", "DELETE FROM core.spans")
    assert result.exit_code == 1
    assert "read-only" in red_line(result).lower()
    with Database(filled, read_only=True) as db:
        assert db.sql("SELECT count(*) FROM spans").item() == 3


# ---------------------------------------------------------------------------- issues
def _issues(store: Path, *args: str) -> list[dict[str, Any]]:
    result = run("--store", store, "issues", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_issues_filters(filled: Path, tmp_path: Path) -> None:
    everything = _issues(filled)
    assert sorted(r["code"] for r in everything) == [
        "E_BAD_ID_ENCODING",
        "W_TIME_OUT_OF_RANGE",
        "W_TIME_OUT_OF_RANGE",
        "W_UNKNOWN_ENUM",
    ]
    assert [r["code"] for r in _issues(filled, "--code", "W_UNKNOWN_ENUM")] == ["W_UNKNOWN_ENUM"]
    assert [r["code"] for r in _issues(filled, "--severity", "error")] == ["E_BAD_ID_ENCODING"]
    other = str(tmp_path / "other.json")
    assert {r["source"] for r in _issues(filled, "--source", other)} == {other}
    assert len(_issues(filled, "--source", other)) == 1
    assert _issues(filled, "--code", "W_UNKNOWN_ENUM", "--severity", "error") == []
    for row in everything:
        assert row["hint"] and row["message"] and row["json_path"]
    as_csv = run("--store", filled, "issues", "--severity", "warning", "--format", "csv")
    codes = [r["code"] for r in csv.DictReader(io.StringIO(as_csv.stdout))]
    assert sorted(codes) == ["W_TIME_OUT_OF_RANGE", "W_TIME_OUT_OF_RANGE", "W_UNKNOWN_ENUM"]
    assert run("--store", filled, "issues").exit_code == 0  # the terminal table


@pytest.mark.usefixtures("wide")
def test_issues_table_shows_the_columns_people_read(filled: Path) -> None:
    result = run("--store", filled, "issues", "--code", "W_UNKNOWN_ENUM")
    assert result.exit_code == 0
    header, row, *under = result.stdout.splitlines()
    assert header.split() == ["code", "severity", "source", "line", "count"]
    assert row.split() == ["W_UNKNOWN_ENUM", "warning", "filled.json", "1", "1"]  # base name
    assert [line.split(":")[0] for line in under if not line.startswith("    ")] == [
        "  at",
        "  message",
    ]
    assert "/filled.json" not in result.stdout


def test_issues_rejects_an_unknown_severity(filled: Path) -> None:
    result = run("--store", filled, "issues", "--severity", "fatal")
    assert result.exit_code == 2  # click's own usage error
    assert "fatal" in result.stderr


def test_the_import_summary_and_issues_agree_on_a_rejected_file(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    kept = tmp_path / "kept.json"  # imported, with two issues (a span without ids)
    kept.write_text('{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x"}]}]}]}')
    bad = tmp_path / "bad.json"  # rejected: its issue is not stored
    bad.write_text("garbage")
    result = run("--store", store, "import", kept, bad)
    assert result.exit_code == 1
    listed = json.loads(run("--store", store, "issues", "--format", "json").stdout)
    stored = sum(row["occurrences"] for row in listed)
    assert {row["source"] for row in listed} == {str(kept)}
    summary = " ".join(result.stdout.split())
    assert f"{stored} issues (and 1 issue of rejected sources, not stored)" in summary
    assert "issues by code: E_MISSING_ID 2 not stored" in summary
    assert "not stored, of rejected sources: E_NOT_OTLP 1" in summary
