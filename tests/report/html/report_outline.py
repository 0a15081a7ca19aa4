"""A report's outline: what a reader sees, without coordinates or styling.

Headings; sections and partitions by id; each chart by id with its title and the tooltip of
every mark (so each mark's state and arithmetic); each table by id with its caption and
rows; the blocked and unmeasured runs. The generation time and the store's path are not in it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import valuechain

_SPACE = re.compile(r"\s+")
_HEADINGS = {"h1", "h2", "h3", "h4"}
_CELLS = {"td", "th", "caption"}


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._text: list[str] | None = None
        self._stack: list[str] = []
        self._row: list[str] | None = None
        self._in_chart = False
        self._in_header = False

    def _start_text(self) -> None:
        self._text = []

    def _end_text(self) -> str:
        text = _SPACE.sub(" ", "".join(self._text or [])).strip()
        self._text = None
        return text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self._stack.append(tag)
        ident = a.get("id")
        if tag == "header":
            self._in_header = True
        if (
            tag in _HEADINGS
            or (tag == "title" and self._in_chart)
            or tag in _CELLS
            or (tag in {"p", "li"} and not self._in_header and not self._in_chart)
        ):
            self._start_text()
        elif tag in {"section", "aside", "article"} or (
            tag == "div" and a.get("class") == "partition"
        ):
            self.lines.append(f"{tag} #{ident}")
        elif tag == "svg" and a.get("class") == "chart":
            self._in_chart = True
            self.lines.append(f"  chart #{ident}")
        elif tag == "table":
            self.lines.append(f"  table #{ident}")
        elif tag == "tr":
            self._row = []
        elif tag == "div" and a.get("class") == "blocked":
            self.lines.append(f"  {a['class']} {a.get('data-run', '')}".rstrip())
        elif tag == "span" and (a.get("class") or "").startswith("badge"):
            self.lines.append(f"  verdict {a.get('data-verdict', 'none')}")

    def handle_endtag(self, tag: str) -> None:
        if self._stack:
            self._stack.pop()
        if tag == "header":
            self._in_header = False
        elif tag in {"p", "li"} and self._text is not None:
            self.lines.append(f"    {'>' if tag == 'p' else '-'} {self._end_text()}")
        elif tag in _HEADINGS and self._text is not None:
            self.lines.append(f"{'#' * int(tag[1])} {self._end_text()}")
        elif tag == "title" and self._in_chart:
            self.lines.append(f"    {self._end_text()}")
        elif tag in _CELLS:
            text = self._end_text()
            if tag == "caption":
                self.lines.append(f"    caption: {text}")
            elif self._row is not None:
                self._row.append(text)
        elif tag == "tr" and self._row is not None:
            self.lines.append("    | " + " | ".join(self._row))
            self._row = None
        elif tag == "svg":
            self._in_chart = False

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def outline(page: str) -> str:
    """The outline of an HTML report, one line per item."""
    parser = _Outline()
    parser.feed(page)
    parser.close()
    return "\n".join(parser.lines) + "\n"


def report_of(path: Path, **kwargs: object) -> str:
    """``Store.report(**kwargs)`` of the store at ``path``, opened read-only."""
    with valuechain.open(path, read_only=True) as store:
        return store.report(**kwargs)  # type: ignore[arg-type]
