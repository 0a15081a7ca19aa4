"""The shared options: one --format factory, two kinds of --analyzer, one "no such run"."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from cli_runner import EXAMPLE_RUN, red_line, run

from valuechain.cli import main
from valuechain.cli.options import format_option
from valuechain.report.formats import Format

TABULAR = "json and csv carry the data itself, every column."
DOCUMENT = "json carries the data itself, every field."


def option(command: str, name: str) -> click.Option:
    (found,) = (p for p in main.commands[command].params if p.name == name)
    assert isinstance(found, click.Option)
    return found


@pytest.mark.parametrize(
    ("command", "choices", "help"),
    [
        ("sql", [f.value for f in Format], "Output format."),
        ("issues", [f.value for f in Format], "Output format."),
        ("runs", ["table", "json", "csv"], TABULAR),
        ("funnel", ["table", "json", "csv"], "json prints the analytics document itself."),
        ("verify", ["table", "json", "csv"], TABULAR),
        ("trial", ["table", "json", "csv"], TABULAR),
        ("coverage", ["table", "json", "csv"], TABULAR),
        ("compare", ["table", "json"], DOCUMENT),
    ],
)
def test_each_format_option_keeps_its_choices_help_and_default(
    command: str, choices: list[str], help: str | None
) -> None:
    fmt = option(command, "fmt")
    assert isinstance(fmt.type, click.Choice)
    assert list(fmt.type.choices) == choices
    assert (fmt.default, fmt.show_default, fmt.help) == ("table", True, help)


def test_format_option_defaults_to_every_format() -> None:
    @format_option()
    def command(fmt: str) -> None: ...

    params = {p.name: p for p in command.__click_params__}  # type: ignore[attr-defined]
    assert list(params["fmt"].type.choices) == [f.value for f in Format]
    assert params["compact"].is_flag  # json among the formats: --compact too


def test_readers_take_any_analyzer_and_derive_only_a_selectable_one() -> None:
    assert option("trial", "analyzer").help == "Show the chain of this version."
    assert option("funnel", "analyzer").help == "Read the document of this version."
    for reader in ("trial", "funnel"):
        analyzer = option(reader, "analyzer")
        assert (analyzer.type, analyzer.default) == (click.INT, None)
    for deriving in ("derive", "import"):
        analyzer = option(deriving, "analyzer")
        assert isinstance(analyzer.type, click.Choice) and analyzer.default == "12"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("verify", "no-such-run"), "no-such-run"),
        (("verify", ""), ""),
        (("materialize", "zz", "aa", EXAMPLE_RUN), "aa"),  # the first unknown in sort order
    ],
)
def test_an_unknown_run_is_the_one_red_line(
    example_store: str, args: tuple[str, ...], named: str
) -> None:
    result = run("--store", example_store, *args)
    assert result.exit_code == 1
    assert red_line(result) == (
        f"error: run {named}: no such run in this store "
        f"hint: list the runs: valuechain --store {example_store} runs"
    )


def test_store_is_taken_after_the_command_too(example_store: str) -> None:
    before = run("--store", example_store, "runs", "--format", "json")
    after = run("runs", "--store", example_store, "--format", "json")
    assert after.exit_code == 0 and after.stdout == before.stdout
    info = run("store", "info", "--store", example_store, "--format", "json")
    assert info.exit_code == 0 and example_store in info.stdout


def test_the_command_s_own_store_wins(example_store: str, tmp_path: Path) -> None:
    result = run("--store", tmp_path / "other.duckdb", "runs", "--store", example_store)
    assert result.exit_code == 0 and EXAMPLE_RUN in result.stdout
    assert not (tmp_path / "other.duckdb").exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_hint_keeps_the_store_the_user_named(tmp_path: Path, where: str) -> None:
    store = tmp_path / "my store.duckdb"
    named = ("--store", str(store))
    args = (*named, "funnel", "run_x") if where == "before" else ("funnel", "run_x", *named)
    result = run(*args)
    assert result.exit_code == 1
    assert red_line(result).endswith(f"valuechain --store '{store}' import PATH")


def test_a_hint_without_a_named_store_stays_as_it_was(example_store: str) -> None:
    result = run("verify", "nope", env={"VALUECHAIN_STORE": example_store})
    assert red_line(result).endswith("hint: list the runs: valuechain runs")


def test_known_runs_pass_the_check(example_store: str) -> None:
    assert run("--store", example_store, "verify", EXAMPLE_RUN).exit_code == 0
    result = run("--store", example_store, "materialize", EXAMPLE_RUN, EXAMPLE_RUN)
    assert result.exit_code == 0 and "materialized" in result.stdout
