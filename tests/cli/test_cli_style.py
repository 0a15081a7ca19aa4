"""One style across commands (issue 41.5): one plain table layout, no Python ``None`` in
human output, counts written alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import run

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
