"""The fitted terminal table (report/tables.py): every line fits, no cell is broken or lost,
the kept columns stay in line longest, and a cell is bounded."""

from __future__ import annotations

import io
import string

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from valuechain.report.formats import bounded, to_rich_table
from valuechain.report.tables import Col, FittedTable, fitted_table

WORD = st.text(string.ascii_lowercase + string.digits + "_./:", min_size=1, max_size=34)


def _text(table: FittedTable, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(table, crop=False)
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined,no-any-return]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.lists(WORD, min_size=4, max_size=4), min_size=1, max_size=6),
    width=st.integers(min_value=40, max_value=160),
)
def test_every_cell_is_shown_whole_and_every_line_fits(rows: list[list[str]], width: int) -> None:
    columns = [Col("id"), Col("b", keep=1), Col("c", keep=2), Col("d", keep=3)]
    table = FittedTable(columns, rows)
    lines = _text(table, width)
    first = max(len(r[0]) for r in rows)
    assert all(len(line) <= max(width, first) for line in lines)  # only the kept id may not
    words = {w for line in lines for w in line.replace(":", " ").split()}
    for row in rows:
        assert row[0] in " ".join(lines)
        for value in row:  # whole, in line or under the row (split on ":" as shown)
            assert all(part in words for part in value.replace(":", " ").split())


def test_less_kept_columns_go_under_first_and_never_jump_the_queue() -> None:
    columns = [Col("id"), Col("long", keep=1), Col("short", keep=2)]
    table = FittedTable(columns, [["run_0123456789", "x" * 60, "ok"]])
    inline, under, hidden = table.layout(40)
    assert [c.name for c in inline] == ["id"]  # "short" would fit, but "long" goes first
    assert [c.name for c in under] == ["long", "short"] and hidden == []
    inline, under, _ = table.layout(200)
    assert [c.name for c in inline] == ["id", "long", "short"] and under == []


def test_wide_puts_every_column_in_line_and_wide_only_columns_say_so() -> None:
    columns = [Col("id"), Col("note", under=True), Col("extra", wide=True)]
    narrow = FittedTable(columns, [["a", "b", "c"]])
    assert narrow.layout(80) == ([columns[0]], [columns[1]], [columns[2]])
    assert _text(narrow, 80)[-1] == "not shown: extra (--wide, or --format json)"
    wide = FittedTable(columns, [["a", "b", "c"]], wide=True)
    assert wide.layout(10) == (columns, [], [])


def test_a_cell_is_bounded_with_its_size() -> None:
    assert bounded("x" * 200) == "x" * 200
    assert bounded("é" * 201) == "é" * 200 + "… (402 bytes)"
    frame = pl.DataFrame({"big": ["y" * 1_000_000]})
    table = fitted_table(frame)
    assert table.rows == [["y" * 200 + "… (1,000,000 bytes)"]]
    rich_table = to_rich_table(frame)  # the plain rich table other verbs use is bounded too
    assert list(rich_table.columns[0].cells) == ["y" * 200 + "… (1,000,000 bytes)"]


def test_no_rows_says_so() -> None:
    assert _text(fitted_table(pl.DataFrame({"a": []})), 80) == ["a", "no rows"]
