"""The README's list of public views and their columns is the store's, exactly (issue 21).

The block after ``<!-- public views: generated -->`` in README.md is what `reference` makes of
a fresh store's ``main`` schema: one entry per view, its columns in order. When a view
changes, the failure prints the block to paste.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from valuechain.store import Database

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- public views: generated -->"
WIDTH = 96


def reference(db: Database) -> str:
    """Every view of the public schema and its columns, wrapped at `WIDTH`."""
    rows = db.con.execute(
        "SELECT table_name, string_agg(column_name, ', ' ORDER BY ordinal_position) "
        "FROM information_schema.columns JOIN information_schema.tables USING "
        "(table_catalog, table_schema, table_name) "
        "WHERE table_schema = 'main' AND table_type = 'VIEW' GROUP BY ALL ORDER BY 1"
    ).fetchall()
    entries = [
        textwrap.fill(f"{name}: {columns}", WIDTH, subsequent_indent="    ")
        for name, columns in rows
    ]
    return "\n".join(entries) + "\n"


def documented() -> str:
    text = README.read_text()
    assert MARKER in text, f"README.md lost its {MARKER} line"
    found = re.search(r"```text\n(.*?)```\n", text[text.index(MARKER) :], re.S)
    assert found is not None, f"no ```text block after {MARKER}"
    return found[1]


def test_the_readme_lists_every_public_view_with_its_columns(tmp_path: Path) -> None:
    with Database(tmp_path / "fresh.duckdb") as db:
        actual = reference(db)
    assert documented() == actual, f"paste this after {MARKER}:\n```text\n{actual}```"
