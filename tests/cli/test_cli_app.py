"""The group and its one error boundary: --version, --store, --memory-limit, the red line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_runner import red_line, run

from valuechain import __version__
from valuechain.store import Database

Write = Callable[[str, bytes | dict[str, Any]], Path]


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"valuechain, version {__version__}"


@pytest.mark.parametrize(
    ("make_store", "fragment"),
    [
        (lambda tmp: tmp / "no" / "such" / "dir" / "s.duckdb", "cannot open the store"),
        (
            lambda tmp: (tmp / "text.duckdb", (tmp / "text.duckdb").write_text("hello"))[0],
            "cannot open the store",
        ),
    ],
    ids=["missing-directory", "not-a-duckdb-file"],
)
def test_bad_store_path_is_one_red_line(
    tmp_path: Path,
    otlp: SimpleNamespace,
    write: Write,
    make_store: Callable[[Path], Path],
    fragment: str,
) -> None:
    bad_store = make_store(tmp_path)
    path = write("a.json", otlp.request(otlp.span(1)))
    result = run("--store", bad_store, "import", path)
    assert result.exit_code == 1
    line = red_line(result)
    assert str(bad_store) in line and fragment in line and " hint: " in line


def test_version_ahead_store_is_one_red_line(store: Path) -> None:
    with Database(store) as db:  # a store written by a newer valuechain
        db.con.execute("UPDATE core.meta SET value = '999' WHERE key = 'schema_version'")
    before = store.read_bytes()
    result = run("--store", store, "sql", "SELECT 1")
    assert result.exit_code == 1
    line = red_line(result)
    assert "999" in line and "upgrade valuechain" in line
    assert store.read_bytes() == before


def _newer(store: Path) -> None:
    with Database(store) as db:  # a store written by a newer valuechain
        db.con.execute("UPDATE core.meta SET value = '999' WHERE key = 'schema_version'")


DAMAGE: dict[str, Callable[[Path], object]] = {
    "newer": _newer,
    "cut-short": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 3]),
    "header-overwritten": lambda p: p.write_bytes(b"\0" * 12288 + p.read_bytes()[12288:]),
    "not-a-database": lambda p: p.write_bytes(b"timestamp,span\n1,2\n"),
}


@pytest.mark.parametrize(
    "verb",
    [("runs",), ("store", "info"), ("sql", "SELECT count(*) FROM spans"), ("import", "a.json")],
    ids=["runs", "store-info", "sql", "import"],
)
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_or_newer_store_prints_its_hint_once(
    tmp_path: Path, otlp: SimpleNamespace, write: Write, damage: str, verb: tuple[str, ...]
) -> None:
    store, export = tmp_path / "s.duckdb", write("a.json", otlp.request(otlp.span(1)))
    assert run("--store", store, "import", export).exit_code == 0
    DAMAGE[damage](store)
    result = run("--store", store, *(str(export) if v == "a.json" else v for v in verb))
    assert result.exit_code == 1
    line = red_line(result)  # one error line, at most one hint line, nothing else
    assert result.stderr.count("hint:") == 1 and line.count("hint:") == 1
    assert "Hint:" not in result.stderr  # the hint is not inside the error line too


def test_store_from_env_and_option(tmp_path: Path, otlp: SimpleNamespace, write: Write) -> None:
    from_env, from_option = tmp_path / "env.duckdb", tmp_path / "opt.duckdb"
    env = {"VALUECHAIN_STORE": str(from_env)}
    assert run("import", write("a.json", otlp.request(otlp.span(1))), env=env).exit_code == 0
    assert from_env.is_file()
    assert (
        run(
            "--store", from_option, "import", write("b.json", otlp.request(otlp.span(2))), env=env
        ).exit_code
        == 0
    )
    counted = run("sql", "SELECT count(*) AS n FROM spans", "--format", "json", env=env)
    assert json.loads(counted.stdout) == [{"n": 1}]
    for target, span_id in ((from_env, f"{1:016x}"), (from_option, f"{2:016x}")):
        with Database(target, read_only=True) as db:
            assert db.sql("SELECT span_id FROM spans").to_series().to_list() == [span_id]


def test_memory_limit_option_reaches_the_store(store: Path, tmp_path: Path) -> None:
    sample = tmp_path / "s.json"
    sample.write_bytes(b'{"resourceSpans":[]}')
    assert run("--store", store, "--memory-limit", "600MB", "import", sample).exit_code == 0
    for limit, problem in (("lots", "is not a size"), ("1MB", "is below the minimum of 64MB")):
        bad = run("--store", store, "--memory-limit", limit, "import", sample)
        from_env = run("--store", store, "import", sample, env={"VALUECHAIN_MEMORY_LIMIT": limit})
        for result in (bad, from_env):
            assert result.exit_code == 2  # a usage error, before anything runs
            assert "Traceback" not in result.output
            assert "Invalid value for '--memory-limit'" in result.stderr
            assert f"memory limit '{limit}' {problem}" in result.stderr


def test_an_unwritable_output_is_one_red_line(example_store: str) -> None:
    result = run(
        "--store", example_store, "sql", "SELECT 1", "--format", "csv", "--output", "/nope/x.csv"
    )
    assert result.exit_code == 1
    assert "cannot write the output" in red_line(result)
