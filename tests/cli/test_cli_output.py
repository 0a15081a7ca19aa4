"""``--output`` never lands on a store, a WAL or any DuckDB file, and is never half-written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from cli_runner import red_line, run

from valuechain.cli import output as output_module
from valuechain.store import Database

Target = Callable[[Path, Path], Path]


def _store_itself(store: Path, _: Path) -> Path:
    return store


def _store_by_symlink(store: Path, folder: Path) -> Path:
    link = folder / "innocent.csv"
    link.symlink_to(store)
    return link


def _store_by_hard_link(store: Path, folder: Path) -> Path:
    link = folder / "hard.csv"
    os.link(store, link)
    return link


def _store_by_relative_path(store: Path, folder: Path) -> Path:
    return folder / ".." / ".." / store.parent.name / folder.name / ".." / store.name


def _store_wal(store: Path, _: Path) -> Path:
    return store.with_name(store.name + ".wal")  # absent now; DuckDB would replay it


def _another_store(_: Path, folder: Path) -> Path:
    other = folder / "other.db"  # a DuckDB file by its header, whatever its name
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE kept AS SELECT 42 AS answer")
    return other


def _another_stores_wal(store: Path, folder: Path) -> Path:
    return _another_store(store, folder).with_name("other.db.wal")


TARGETS: dict[str, Target] = {
    "the store": _store_itself,
    "a symlink to the store": _store_by_symlink,
    "a hard link to the store": _store_by_hard_link,
    "the store by a roundabout path": _store_by_relative_path,
    "the store's WAL": _store_wal,
    "another DuckDB file": _another_store,
    "another DuckDB file's WAL": _another_stores_wal,
}
COMMANDS = {
    "sql": ("sql", "SELECT 1 AS one", "--format", "csv"),
    "issues": ("issues", "--format", "json"),
}


@pytest.mark.parametrize("target", TARGETS.values(), ids=TARGETS.keys())
@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_output_onto_a_database_is_refused(
    filled: Path, tmp_path: Path, target: Target, command: tuple[str, ...]
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    output = target(filled, folder)
    before = {p: p.read_bytes() for p in (filled, output) if p.is_file()}
    result = run("--store", filled, *command, "--output", output)
    assert result.exit_code == 1
    line = red_line(result)
    assert "would destroy it" in line and "--output" in line
    assert {p: p.read_bytes() for p in before} == before
    assert not any(p.name.endswith(".part") for p in folder.iterdir())
    with Database(filled, read_only=True) as db:
        assert db.fetch_one("SELECT count(*) FROM core.spans") == (3,)


def test_output_replaces_a_file_whole_and_keeps_its_mode(filled: Path, tmp_path: Path) -> None:
    output = tmp_path / "result.csv"
    output.write_text("old\n" * 1000)
    output.chmod(0o640)
    result = run("--store", filled, "sql", "SELECT 1 AS one", "--format", "csv", "--output", output)
    assert result.exit_code == 0, result.output
    assert output.read_text() == "one\n1\n"
    assert output.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_output_through_a_symlink_writes_its_target(filled: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert run("--store", filled, "sql", "SELECT 2 AS two", "--format", "csv", "--output", link)
    assert link.is_symlink() and real.read_text() == "two\n2\n"


def test_an_interrupted_write_leaves_the_old_file(
    filled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "result.csv"
    output.write_text("the previous result\n")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output_module.os, "fsync", disk_full)
    result = run("--store", filled, "sql", "SELECT 1 AS one", "--format", "csv", "--output", output)
    assert result.exit_code == 1
    assert "No space left on device" in red_line(result)
    assert output.read_text() == "the previous result\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_a_list_is_json_in_a_csv_cell(filled: Path) -> None:
    result = run("--store", filled, "sql", "SELECT [1, 2] AS l, {'a': 'x'} AS s", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout == 'l,s\n"[1,2]","{""a"":""x""}"\n'
