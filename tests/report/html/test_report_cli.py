"""``valuechain report``: the file it writes, where it refuses to write, its errors."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cli"))

from cli_runner import red_line, run
from report_outline import outline, report_of

import valuechain
from valuechain.cli import report as report_cli


def test_writes_the_report_and_says_so(trend_store: Path, tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    result = run("--store", trend_store, "report", "--runs", "m-second", "--out", target)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {target}: 1 run, ")
    assert target.read_text(encoding="utf-8").count('<section class="run"') == 1
    assert outline(target.read_text(encoding="utf-8")) == outline(
        report_of(trend_store, runs=["m-second"])
    )
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


def test_replaces_an_old_report_whole(trend_store: Path, tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    target.write_text("old " * 100_000)
    assert (
        run("--store", trend_store, "report", "--suite", "suite-2", "--out", target).exit_code == 0
    )
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_never_writes_onto_the_store(trend_store: Path) -> None:
    before = trend_store.read_bytes()
    result = run("--store", trend_store, "report", "--out", trend_store)
    assert "is the store" in red_line(result) and "give --out a new file name" in red_line(result)
    assert result.exit_code == 1
    assert trend_store.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--runs", "nope"), "error: nope: no such run in the store hint: list the runs"),
        (("--suite", "nope"), "error: --suite nope: no eval run of this suite in the store"),
        (("--runs", "z-first", "--suite", "suite-1"), "error: --runs and --suite: name one"),
    ],
)
def test_bad_arguments_are_one_red_line(
    trend_store: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    target = tmp_path / "r.html"
    result = run("--store", trend_store, "report", *args, "--out", target)
    assert result.exit_code == 1
    assert red_line(result).startswith(message)
    assert not target.exists()


def test_an_empty_store_has_nothing_to_report(tmp_path: Path) -> None:
    store = tmp_path / "empty.duckdb"
    valuechain.open(store).close()  # a store, with nothing in it
    result = run("--store", store, "report", "--out", tmp_path / "r.html")
    assert "the store: holds no run to report on" in red_line(result)


def test_help_has_an_example() -> None:
    result = run("report", "--help")
    assert "valuechain report --suite" in result.output.split("Examples:")[1]


def test_the_bar_appears_only_after_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([100.0, 100.5, 101.5, 101.6])  # start, a fast step, then a slow one
    monkeypatch.setattr(report_cli.time, "monotonic", lambda: next(clock))
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    with report_cli.step_bar(console) as step:
        step("run a", 0, 3)
        assert screen.getvalue() == ""  # under a second: no bar at all
        step("run b", 1, 3)
        step("trend", 2, 3)
    assert "report" in screen.getvalue()
