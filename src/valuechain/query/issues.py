"""The issue log of imported sources (view ``issues``), filtered as the ``issues`` verb asks.

``--source`` names a source the way a person remembers it: its path as imported, the same
file by another path (relative or absolute), its basename, a path suffix, or a prefix of its
sha256. The first of these that matches decides; two different sources matching it is an
error listing both, never a silent pick.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import duckdb
import polars as pl

from valuechain.errors import UsageError
from valuechain.query.statements import query_frame, query_rows

_SHA_PREFIX = re.compile(r"^[0-9a-fA-F]{4,64}$")


class Source(NamedTuple):
    source_id: int
    path: str
    sha256: str


def issues_frame(
    con: duckdb.DuckDBPyConnection,
    *,
    code: str | None = None,
    severity: str | None = None,
    source: str | None = None,
) -> pl.DataFrame:
    """Every issue matching the filters given (None keeps all), in source and record order."""
    ids = None
    if source is not None:
        rows = query_rows(con, "query/import_sources.sql")
        known = [Source(r["source_id"], r["path"], r["sha256"]) for r in rows]
        ids = [s.source_id for s in match_sources(known, source)]
    return query_frame(
        con, "query/issues.sql", {"code": code, "severity": severity, "source_ids": ids}
    )


def match_sources(sources: Sequence[Source], text: str, cwd: Path | None = None) -> list[Source]:
    """The sources ``text`` names (see the module docstring); raises when none or several."""
    here = cwd or Path.cwd()
    wanted = _resolved(text, here)
    tiers: tuple[tuple[str, Callable[[Source], bool]], ...] = (
        ("path", lambda s: s.path == text),
        ("file", lambda s: _resolved(s.path, here) == wanted),
        ("basename", lambda s: os.path.basename(s.path) == text),
        ("path suffix", lambda s: s.path.endswith("/" + text.lstrip("./"))),
        (
            "sha256 prefix",
            lambda s: bool(_SHA_PREFIX.match(text)) and s.sha256.startswith(text.lower()),
        ),
    )
    for how, matches in tiers:
        found = [s for s in sources if matches(s)]
        distinct = {s.sha256 if how == "sha256 prefix" else s.path for s in found}
        if len(distinct) > 1:
            listed = "; ".join(f"{s.path} (sha256 {s.sha256[:12]})" for s in found)
            raise UsageError(
                f"--source {text}",
                f"names {len(found)} different sources by {how}: {listed}",
                "give more of the path, or a longer sha256 prefix",
            )
        if found:
            return found
    raise UsageError(
        f"--source {text}",
        "no imported source has this path, basename or sha256 prefix",
        'list the sources: valuechain sql "SELECT source_id, path, sha256 FROM imports"',
    )


def _resolved(path: str, cwd: Path) -> Path:
    return Path(os.path.realpath(cwd / os.path.expanduser(path)))
