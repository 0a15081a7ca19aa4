"""mkdocs hooks: the pages generated from the code, and the spec citations made links.

- ``<!-- public views: generated -->`` becomes every view of a fresh store's ``main`` schema
  with its columns and types, as DuckDB lists them: the reference cannot be retyped wrong.
- ``<!-- issue codes: generated -->`` becomes the issue vocabulary of
  ``valuechain.contract.issues``: each code, its severity and its hints.
- ``CONTRACT §5.11`` and ``TRACE-FORMAT §3.6`` in prose become links to the spec pages'
  anchors (``#s5.11``); ``resolve`` is what tests/docs/test_spec_citations.py checks every
  citation of the sources and the pages against.
"""

from __future__ import annotations

import posixpath
import re
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from valuechain.contract.issues import AGGREGATED, HINTS, TRIAL_HINTS, Code
from valuechain.store import Database

DOCS = Path(__file__).resolve().parent
VIEWS_MARKER = "<!-- public views: generated -->"
CODES_MARKER = "<!-- issue codes: generated -->"

# A spec page's numbered headings carry ``{#s<number>}``; the extension pages' titles carry
# the number of the section of TRACE-FORMAT they add (§3.8 as read, §3.10 SDK results).
SPECS = {
    "CONTRACT": ["spec/contract.md"],
    "TRACE-FORMAT": ["spec/trace-format.md", "spec/trace-format-3.8.md", "spec/mcpjam-sdk.md"],
    "docs/spec/mcpjam-sdk.md": ["spec/mcpjam-sdk.md"],
    "docs/spec/trace-format-3.8.md": ["spec/trace-format-3.8.md"],
}
_ANCHOR = re.compile(r"\{#(s[0-9][0-9.]*)\}\s*$", re.M)
# "CONTRACT §5.11" and its ranges' and lists' later members ("TRACE-FORMAT §3.4–§3.7")
CITATION = re.compile(r"(CONTRACT|TRACE-FORMAT) §(\d+(?:\.\d+)*)")


@cache
def anchors(page: str) -> frozenset[str]:
    """The section anchors of one spec page (``s5.11``)."""
    return frozenset(_ANCHOR.findall((DOCS / page).read_text()))


def resolve(document: str, section: str) -> str | None:
    """The page and anchor (``spec/contract.md#s5.11``) of ``document §section``, or None."""
    for page in SPECS[document]:
        if f"s{section}" in anchors(page):
            return f"{page}#s{section}"
    return None


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if VIEWS_MARKER in markdown:
        markdown = markdown.replace(VIEWS_MARKER, views_reference())
    if CODES_MARKER in markdown:
        markdown = markdown.replace(CODES_MARKER, issue_codes())
    return link_citations(markdown, page.file.src_uri)


def views_reference() -> str:
    """Every public view of a fresh store: a heading each, its columns in order with types."""
    with tempfile.TemporaryDirectory() as folder, Database(Path(folder) / "fresh.duckdb") as db:
        rows = db.con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "JOIN information_schema.tables USING (table_catalog, table_schema, table_name) "
            "WHERE table_schema = 'main' AND table_type = 'VIEW' "
            "ORDER BY table_name, ordinal_position"
        ).fetchall()
    views: dict[str, list[tuple[str, str]]] = {}
    for view, column, kind in rows:
        views.setdefault(view, []).append((column, kind))
    parts = []
    for view, columns in views.items():
        body = "\n".join(f"| `{c}` | `{k}` |" for c, k in columns)
        parts.append(f"### `{view}` {{#{view}}}\n\n| column | type |\n|---|---|\n{body}\n")
    return "\n".join(parts)


def issue_codes() -> str:
    """The issue vocabulary: code, severity, what it means for the source (and the trial)."""
    lines = ["| code | severity | hint |", "|---|---|---|"]
    for code in Code:
        hints = [h for h in (HINTS.get(code), TRIAL_HINTS.get(code)) if h]
        if code in AGGREGATED:
            hints.append("one row per source, with an `occurrences` count")
        cell = "<br>".join(h.replace("|", "\\|") for h in hints)
        lines.append(f"| `{code.value}` | {code.severity.value} | {cell} |")
    return "\n".join(lines) + "\n"


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def link_citations(markdown: str, src_uri: str) -> str:
    """Prose citations as links; code blocks, inline code, headings and links stay as written."""
    here = posixpath.dirname(src_uri)
    out, fence = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence or line.startswith("#") or "](" in line:
            out.append(line)
            continue
        # split() yields prose, then (ticks, code) pairs: only the prose is rewritten
        pieces = _CODE_SPAN.split(line)
        rebuilt = []
        for i in range(0, len(pieces), 3):
            rebuilt.append(CITATION.sub(lambda m: _link(m, here), pieces[i]))
            if i + 2 < len(pieces):
                rebuilt.append(pieces[i + 1] + pieces[i + 2] + pieces[i + 1])
        out.append("".join(rebuilt))
    return "\n".join(out)


def _link(match: re.Match[str], here: str) -> str:
    target = resolve(match[1], match[2])
    if target is None:
        return match[0]
    return f"[{match[0]}]({posixpath.relpath(target, here or '.')})"
