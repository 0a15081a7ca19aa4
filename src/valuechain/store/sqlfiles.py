"""Locate and load the SQL files of ``sql/`` from a checkout or from the installed wheel.

SQL lives in files, one statement each, a header comment stating grain and inputs, numeric
prefixes giving the order (STYLE.md habit 6). Values are bound as ``$name`` parameters, never
formatted into the text; ``bind`` passes each statement exactly the parameters it names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True, slots=True)
class SqlFile:
    name: str  # e.g. "ingest/010_new_spans.sql"
    text: str

    @property
    def params(self) -> frozenset[str]:
        return frozenset(_PARAM.findall(_strip_comments(self.text)))

    def bind(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The subset of ``values`` this statement names; a missing one is a bug."""
        missing = self.params - values.keys()
        if missing:
            raise KeyError(f"{self.name}: no value for parameter(s) {sorted(missing)}")
        return {name: values[name] for name in self.params}


def sql_root() -> Path:
    """``sql/`` of the checkout when running from one, else the copy inside the wheel."""
    checkout = Path(__file__).resolve().parents[3] / "sql"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("valuechain") / "_sql"))


@cache
def folder(name: str) -> tuple[SqlFile, ...]:
    """Every ``.sql`` file of ``sql/<name>/`` in build order (numeric prefix)."""
    root = sql_root() / name
    if not root.is_dir():
        raise FileNotFoundError(f"SQL folder not found: {root}")
    return tuple(
        SqlFile(f"{name}/{p.name}", p.read_text(encoding="utf-8"))
        for p in sorted(root.glob("*.sql"))
    )


def statement(name: str) -> SqlFile:
    """One file by its path below ``sql/`` (``"ingest/000_next_rows.sql"``)."""
    folder_name = name.partition("/")[0]
    for sql in folder(folder_name):
        if sql.name == name:
            return sql
    raise FileNotFoundError(f"SQL file not found: sql/{name}")


def _strip_comments(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())
