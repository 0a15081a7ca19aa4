"""The shared options: one --format factory, two kinds of --analyzer, one "no such run"."""

from __future__ import annotations

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

    (param,) = command.__click_params__  # type: ignore[attr-defined]
    assert list(param.type.choices) == [f.value for f in Format]


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
        f"error: run {named}: no such run in this store hint: list the runs: valuechain runs"
    )


def test_known_runs_pass_the_check(example_store: str) -> None:
    assert run("--store", example_store, "verify", EXAMPLE_RUN).exit_code == 0
    result = run("--store", example_store, "materialize", EXAMPLE_RUN, EXAMPLE_RUN)
    assert result.exit_code == 0 and "materialized" in result.stdout
