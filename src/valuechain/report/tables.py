"""Terminal tables that read at 80 columns: the one layout every verb's table uses.

A cell is never broken: an id stays on one line, whole, so it can be copied into the next
command. What does not fit goes *under its row* instead (``name: value``, wrapped at the width)
— long messages always do — and ``--wide`` puts every column in line, however wide.
Columns are declared as data (`Col`): which ones stay in line longest (``keep``), which are
right-aligned, which live under the row, which only ``--wide`` shows. A frame without a
declaration (``sql``) keeps its columns in order, left to right, as far as they fit.

Every cell is bounded before it is measured: a value beyond `CELL_LIMIT` characters shows its
first `CELL_LIMIT` and ``… (N bytes)`` (csv and json output stay whole), so a 10 MB attribute
renders as fast as a short one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from valuechain.report.columns import Col
from valuechain.report.formats import bounded, cell_text

if TYPE_CHECKING:  # `rows_table` needs no engine: `runs` lists a store without loading one
    import polars as pl

NULL: Final = "∅"
GAP: Final = "  "
LONG_TEXT: Final = 40  # a generic text column whose longest cell is wider goes under the row


def generic_columns(frame: pl.DataFrame, texts: dict[str, list[str]]) -> list[Col]:
    """A frame's columns in order: numbers right-aligned, long or multi-line text under."""
    columns: list[Col] = []
    for position, (name, dtype) in enumerate(frame.schema.items()):
        cells = texts[name]
        longest = max((len(c) for c in cells), default=0)
        under = longest > LONG_TEXT or any("\n" in c for c in cells)
        right = dtype.is_numeric()
        columns.append(Col(name, align="right" if right else "left", keep=position, under=under))
    return columns


def cell(value: Any) -> str:
    """One value as a bounded table cell (JSON for nested values, hex for binary)."""
    if value is None:
        return NULL
    text = value if isinstance(value, str) else cell_text(value)
    return bounded(text if text is not None else NULL)


@dataclass(slots=True)
class FittedTable:
    """A table laid out for the console's width when printed (see the module docstring)."""

    header: list[Col]
    rows: list[list[str]]
    title: str | None = None
    wide: bool = False
    caption: str | None = None
    joined: bool = False  # the cells under a row on one line, `` · ``-separated
    styles: list[dict[str, str]] = field(default_factory=list)  # per row: column → style

    def layout(self, width: int) -> tuple[list[Col], list[Col], list[Col]]:
        """(in line, under the row, not shown) for ``width`` columns of terminal."""
        shown = [c for c in self.header if self.wide or not c.wide]
        hidden = [c for c in self.header if c not in shown]
        under = [c for c in shown if c.under and not self.wide]
        candidates = [c for c in shown if c not in under]
        widths = {c.name: self._width(c) for c in candidates}
        order = sorted(range(len(candidates)), key=lambda i: (candidates[i].keep, i))
        chosen: set[int] = set()
        used = 0
        ceiling: int | None = None  # once a column does not fit, no less-kept one jumps in
        for i in order:
            keep = candidates[i].keep
            need = widths[candidates[i].name] + (len(GAP) if chosen else 0)
            fits = used + need <= width and (ceiling is None or keep <= ceiling)
            if self.wide or not chosen or keep == 0 or fits:
                chosen.add(i)
                used += need
            elif ceiling is None:
                ceiling = keep
        inline = [c for i, c in enumerate(candidates) if i in chosen]
        moved = [c for i, c in enumerate(candidates) if i not in chosen]
        return inline, [c for c in shown if c in under or c in moved], hidden

    def _width(self, column: Col) -> int:
        index = self.header.index(column)
        return max([cell_len(column.title), *(cell_len(r[index]) for r in self.rows)])

    def lines(self, width: int) -> list[Text]:
        inline, under, hidden = self.layout(width)
        index = {c.name: self.header.index(c) for c in self.header}
        widths = [self._width(c) for c in inline]
        out: list[Text] = []
        if self.title:
            out.extend((Text(""), Text(self.title, style="bold")))
        if inline:
            out.append(_line([c.title for c in inline], inline, widths, "bold"))
        for k, row in enumerate(self.rows):
            styles = self.styles[k] if k < len(self.styles) else {}
            cells = [row[index[c.name]].replace("\n", " ") for c in inline]
            if inline:
                line_styles = [styles.get(c.name, "") for c in inline]
                out.append(_line(cells, inline, widths, cell_styles=line_styles))
            else:  # every column is long: each row is a block of name: value lines
                out.append(Text(f"row {k + 1}", style="bold"))
            notes = [(c.title, row[index[c.name]]) for c in under if row[index[c.name]]]
            if self.joined and notes:
                out.extend(_under(" · ".join(f"{name}: {value}" for name, value in notes), width))
            else:
                for name, value in notes:
                    out.extend(_under(f"{name}: {value}", width))
        if not self.rows:
            out.append(Text("no rows", style="dim"))
        if self.caption:
            out.append(Text(self.caption, style="dim"))
        if hidden:
            names = ", ".join(c.title for c in hidden)
            out.append(Text(f"not shown: {names} (--wide, or --format json)", style="dim"))
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            line.no_wrap = True
            line.overflow = "ignore"
            yield line


def _line(
    cells: Sequence[str],
    columns: Sequence[Col],
    widths: Sequence[int],
    style: str = "",
    cell_styles: Sequence[str] = (),
) -> Text:
    line = Text(style=style)
    for k, (text, column, width) in enumerate(zip(cells, columns, widths, strict=True)):
        if k:
            line.append(GAP)
        pad = " " * (width - cell_len(text))
        line.append(pad if column.align == "right" else "")
        line.append(text, style=cell_styles[k] if k < len(cell_styles) else "")
        line.append("" if column.align == "right" else pad)
    line.rstrip()
    return line


def _under(text: str, width: int) -> list[Text]:
    """A ``name: value`` line under its row, indented and wrapped at spaces; only a word
    longer than a whole line is cut."""
    lines: list[str] = []
    current = "  "
    room = max(width - 4, 8)
    words = [
        piece
        for word in text.replace("\n", " ").split(" ")
        for piece in ([word] if len(word) <= room else _fold(word, room))
    ]
    for word in words:
        if current.strip() and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = "    " + word
        else:
            current += word if not current.strip() else " " + word
    lines.append(current)
    return [Text(line.rstrip(), style="dim") for line in lines if line.strip()]


def _fold(word: str, room: int) -> list[str]:
    """A word longer than a whole line (never an id: those are far shorter) in line-sized
    pieces."""
    return [word[i : i + room] for i in range(0, len(word), room)]


def fitted_table(
    frame: pl.DataFrame,
    columns: Iterable[Col] | None = None,
    *,
    title: str | None = None,
    wide: bool = False,
    max_rows: int = 200,
    joined: bool = False,
) -> FittedTable:
    """``frame`` as a terminal table (the first ``max_rows`` rows; the caption says so)."""
    head = frame.head(max_rows)
    texts = {name: [cell(v) for v in head.get_column(name).to_list()] for name in head.columns}
    declared = list(columns) if columns is not None else generic_columns(head, texts)
    rows = [[texts[c.name][i] for c in declared] for i in range(head.height)]
    return FittedTable(
        declared,
        rows,
        title=title,
        wide=wide,
        caption=_caption(max_rows, frame.height),
        joined=joined,
    )


def rows_table(
    rows: Sequence[dict[str, Any]],
    columns: Iterable[Col],
    *,
    wide: bool = False,
    max_rows: int = 200,
) -> FittedTable:
    """Python rows (column name → value) as `fitted_table` shows a frame of them."""
    declared = list(columns)
    cells = [[cell(row[c.name]) for c in declared] for row in rows[:max_rows]]
    return FittedTable(declared, cells, wide=wide, caption=_caption(max_rows, len(rows)))


def _caption(max_rows: int, height: int) -> str | None:
    if height <= max_rows:
        return None
    return f"{max_rows} of {height} rows shown; use --format csv or --output"
