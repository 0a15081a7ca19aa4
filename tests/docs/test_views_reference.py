"""The views reference is the store's, exactly (issues 21 and 42).

docs/reference/views.md ends with ``<!-- public views: generated -->``, which the site's hook
(``docs/hooks.py``) replaces with every view of a fresh store's ``main`` schema and its
columns in order. The prose tables above it name views by hand: each must be one the store has.
"""

from __future__ import annotations

import re
from pathlib import Path

from docs.hooks import VIEWS_MARKER, views_reference

from valuechain.store import Database

PAGE = Path(__file__).resolve().parents[2] / "docs/reference/views.md"


def _store_views(tmp_path: Path) -> dict[str, list[str]]:
    with Database(tmp_path / "fresh.duckdb") as db:
        rows = db.con.execute(
            "SELECT table_name, list(column_name ORDER BY ordinal_position) "
            "FROM information_schema.columns JOIN information_schema.tables USING "
            "(table_catalog, table_schema, table_name) "
            "WHERE table_schema = 'main' AND table_type = 'VIEW' GROUP BY ALL ORDER BY 1"
        ).fetchall()
    return dict(rows)


def test_the_generated_reference_lists_every_view_with_its_columns_in_order(
    tmp_path: Path,
) -> None:
    rendered = views_reference()
    listed: dict[str, list[str]] = {}
    for section in re.split(r"^### ", rendered, flags=re.M)[1:]:
        name = re.match(r"`(\w+)`", section)
        assert name is not None, section[:80]
        listed[name[1]] = re.findall(r"^\| `(\w+)` \|", section, flags=re.M)
    assert listed == _store_views(tmp_path)


def test_the_page_keeps_its_generated_part() -> None:
    assert PAGE.read_text().rstrip().endswith(VIEWS_MARKER)


def test_every_view_the_prose_tables_name_exists(tmp_path: Path) -> None:
    text = PAGE.read_text()
    named = set()
    for cell in re.findall(r"^\| (`[^|]*`) \|", text, flags=re.M):
        named |= set(re.findall(r"`(\w+)`", cell))
    assert named, "the page's tables name no view"
    missing = named - set(_store_views(tmp_path))
    assert not missing, f"docs/reference/views.md names views the store has not: {missing}"
