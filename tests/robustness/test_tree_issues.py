"""The span tree's notes (TRACE-FORMAT §5.2): `W_ORPHAN_SPAN` for a span whose parent is not
in the trace, `I_CHILD_OUTSIDE_PARENT` for a child outside its parent's window — once per
trace, counted — and neither left stale when the parent arrives in a later import: "the
batch" is every span of the trace the store holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

T0 = 1_700_000_000_000_000_000
P1 = f"{1:016x}"


def span(n: int, **fields: Any) -> dict[str, Any]:
    """Span ``n`` of one trace, 500 ns long from ``n`` µs; fields override (``...`` drops one)."""
    out = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": f"{n:016x}",
        "name": f"span-{n}",
        **_times(n * 1000, n * 1000 + 500),
        **fields,
    }
    return {k: v for k, v in out.items() if v is not ...}


def request(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]}


def _times(start: int, end: int) -> dict[str, str]:
    return {"startTimeUnixNano": str(T0 + start), "endTimeUnixNano": str(T0 + end)}


ROOT = span(1, **_times(0, 10_000))
CASES: list[tuple[str, list[dict[str, Any]], dict[str, int]]] = [
    ("a child inside its parent", [ROOT, span(2, parentSpanId=P1, **_times(10, 20))], {}),
    ("the same window", [ROOT, span(2, parentSpanId=P1, **_times(0, 10_000))], {}),
    ("one orphan", [ROOT, span(2, parentSpanId=f"{9:016x}")], {"W_ORPHAN_SPAN": 1}),
    (
        "two orphans, one row",
        [ROOT, span(2, parentSpanId=f"{8:016x}"), span(3, parentSpanId=f"{9:016x}")],
        {"W_ORPHAN_SPAN": 2},
    ),
    (
        "only orphans: the earliest roots the trial",
        [
            span(2, parentSpanId=f"{9:016x}"),
            span(3, parentSpanId=f"{2:016x}", **_times(2100, 2200)),
        ],
        {"W_ORPHAN_SPAN": 1},
    ),
    (
        "a child starting early",
        [ROOT, span(2, parentSpanId=P1, **_times(-1, 20))],
        {"I_CHILD_OUTSIDE_PARENT": 1},
    ),
    (
        "a child ending late, and its own child inside it",
        [
            ROOT,
            span(2, parentSpanId=P1, **_times(10, 10_001)),
            span(3, parentSpanId=f"{2:016x}", **_times(20, 30)),
        ],
        {"I_CHILD_OUTSIDE_PARENT": 1},
    ),
    (
        "a child without times is not compared",
        [ROOT, span(2, parentSpanId=P1, startTimeUnixNano=..., endTimeUnixNano=...)],
        {},
    ),
    (
        "a conflicting copy of the parent is still the parent",
        [ROOT, span(1, name="other", **_times(0, 10_000)), span(2, parentSpanId=P1)],
        {},
    ),
]


def _tree_issues(db: Database) -> dict[str, int]:
    rows = db.con.execute(
        "SELECT code, sum(occurrences) FROM trial_issues "
        "WHERE code IN ('W_ORPHAN_SPAN', 'I_CHILD_OUTSIDE_PARENT') GROUP BY code"
    ).fetchall()
    return {code: int(n) for code, n in rows}


def _import(db: Database, path: Path, spans: list[dict[str, Any]]) -> None:
    path.write_bytes(orjson.dumps(request(*spans)))
    report = import_paths(db, [path], ImportOptions())
    assert [s.outcome for s in report.sources] == ["imported"]


@pytest.mark.parametrize(("spans", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_tree_notes_of_a_trace(
    spans: list[dict[str, Any]], expected: dict[str, int], tmp_path: Path
) -> None:
    with Database(tmp_path / "s.duckdb") as db:
        _import(db, tmp_path / "export.json", spans)
        assert _tree_issues(db) == expected
        rows = db.con.execute(  # one row per trace and code, counted
            "SELECT count(*) FROM trial_issues WHERE code = 'W_ORPHAN_SPAN'"
        ).fetchone()
        assert rows == (1 if expected.get("W_ORPHAN_SPAN") else 0,)
        orphans = db.fetch_one("SELECT count(*) FROM spans WHERE is_orphan")
        assert orphans == (expected.get("W_ORPHAN_SPAN", 0),)  # the view agrees


def test_a_parent_arriving_in_a_later_import_clears_the_warning(tmp_path: Path) -> None:
    with Database(tmp_path / "s.duckdb") as db:
        _import(db, tmp_path / "children.json", [span(2, parentSpanId=P1, **_times(-5, 20))])
        assert _tree_issues(db) == {"W_ORPHAN_SPAN": 1}
        _import(db, tmp_path / "parent.json", [ROOT])
        # the trace is derived again over both files: no orphan, but now a child starting early
        assert _tree_issues(db) == {"I_CHILD_OUTSIDE_PARENT": 1}
        assert db.fetch_one("SELECT count(*) FROM spans WHERE is_orphan") == (0,)
        assert db.fetch_one("SELECT count(*) FROM trials") == (1,)
