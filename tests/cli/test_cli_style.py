"""One style across commands (issue 41.5): one plain table layout, no Python ``None`` in
human output, counts written alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import EXAMPLE, EXAMPLE_RUN, run

from valuechain.cli.tools import LEGEND
from valuechain.contract.words import number, plural
from valuechain.store import Database

BOX_DRAWING = frozenset("┏┓┗┛┃━│┡┩╇┳┻╋└┘┌┐├┤┬┴┼")


@pytest.mark.parametrize(
    "args", [("store", "info"), ("coverage",), ("coverage", "--lint"), ("runs",)]
)
def test_every_table_is_the_plain_one(example_store: str, args: tuple[str, ...]) -> None:
    result = run("--store", example_store, *args)
    assert result.exit_code == 0, result.output
    assert not BOX_DRAWING & set(result.stdout), result.stdout


def test_store_info_says_what_a_missing_value_means(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    Database(path).close()
    result = run("--store", path, "store", "info")
    assert result.exit_code == 0, result.output
    assert "None" not in result.stdout
    assert "0 sources (nothing imported yet)" in result.stdout


def test_store_info_counts_have_thousands_separators(example_store: str) -> None:
    text = run("--store", example_store, "store", "info").stdout
    assert "1 source (first imported " in text  # one source: no plural
    assert " bytes + " in text and "," in text.split(" bytes + ")[0]  # the file is > 1,000


JSON_COMMANDS = [
    ("runs",),
    ("funnel", EXAMPLE_RUN),
    ("verdict", EXAMPLE_RUN),
    ("compare", EXAMPLE_RUN, EXAMPLE_RUN),
    ("trials", EXAMPLE_RUN),
    ("coverage",),
    ("trend",),
    ("store", "info"),
    ("sql", "SELECT 1 AS x"),
    ("schema", "verdict-policy"),
]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=[a[0] for a in JSON_COMMANDS])
def test_json_is_indented_alike_and_compact_on_request(
    example_store: str, args: tuple[str, ...]
) -> None:
    json_args = (*args, "--format", "json") if args[0] != "schema" else args
    pretty = run("--store", example_store, *json_args)
    assert pretty.exit_code == 0, pretty.output
    assert pretty.stdout[:1] in "[{" and pretty.stdout[1:4] == "\n  "  # indented two spaces
    for compact in (("--compact", *json_args), (*json_args, "--compact")):
        one_line = run("--store", example_store, *compact)
        assert one_line.exit_code == 0, one_line.output
        assert one_line.stdout.count("\n") == 1
        assert json.loads(one_line.stdout) == json.loads(pretty.stdout)


def test_plural_and_number_write_counts_alike() -> None:
    assert plural(1, "run") == "1 run"
    assert plural(2, "run") == "2 runs"
    assert plural(0, "issue") == "0 issues"
    assert plural(16095, "span") == "16,095 spans"
    assert plural(2, "tool-call list") == "2 tool-call lists"
    assert number(1234567) == "1,234,567"


def test_one_spelling_of_not_measured_in_human_output(example_store: str) -> None:
    texts = [
        run("--store", example_store, *args).stdout
        for args in (("coverage",), ("funnel", EXAMPLE_RUN), ("demo", "--help"))
    ]
    for text in texts:
        assert "notMeasured" not in text and "n/m" not in text
    assert "not measured" in texts[0]  # the coverage table's column
    assert (
        LEGEND == "passed, failed: measured · not reached, not measured, not applicable: not a pass"
    )


def test_a_derive_summary_writes_one_run_singular(tmp_path: Path, shared: Path) -> None:
    result = run("--store", tmp_path / "s.duckdb", "import", shared / EXAMPLE)
    assert result.exit_code == 0, result.output
    assert "in 1 run (" in result.stdout and "1 runs" not in result.stdout
    assert "1 source, 72 spans, 8 traces, 0 issues" in result.stdout
