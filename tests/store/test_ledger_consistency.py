"""A store whose import ledger and spans disagree is refused on open, naming what is missing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import valuechain
from valuechain.errors import StoreError
from valuechain.store import Database
from valuechain.store.consistency import LedgerMismatch, ledger_mismatches

Write = Callable[[str, bytes | dict[str, Any]], Path]


@pytest.fixture
def two_sources(tmp_path: Path, otlp: SimpleNamespace, write: Write) -> tuple[Path, Path, Path]:
    store = tmp_path / "s.duckdb"
    a = write("a.json", otlp.request(otlp.span(1), otlp.span(2)))
    b = write("b.json", otlp.request(otlp.span(3)))
    with valuechain.open(store) as opened:
        assert opened.import_paths([a, b]).ok
    return store, a, b


def _behind_the_verbs(store: Path, statement: str) -> None:
    with Database(store) as db:  # what another DuckDB client could do
        db.con.execute(statement)


CHANGED = {
    "spans deleted": (
        "DELETE FROM core.spans WHERE true",
        ["a.json lists 2 spans, 0 stored", "b.json lists 1 span, 0 stored"],
    ),
    "one source's spans deleted": (
        "DELETE FROM core.spans WHERE source_id = 2",
        ["b.json lists 1 span, 0 stored"],
    ),
    "one span deleted": (
        "DELETE FROM core.spans WHERE span_id = '\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01'::BLOB",
        ["a.json lists 2 spans, 1 stored"],
    ),
    "a ledger row deleted": (
        "DELETE FROM core.sources WHERE source_id = 1",
        ["2 spans belong to no listed source (source id 1)"],
    ),
}


@pytest.mark.parametrize(("statement", "named"), CHANGED.values(), ids=CHANGED.keys())
@pytest.mark.parametrize("read_only", [False, True], ids=["read-write", "read-only"])
def test_a_disagreeing_store_is_refused_and_named(
    two_sources: tuple[Path, Path, Path], statement: str, named: list[str], read_only: bool
) -> None:
    store, _, _ = two_sources
    with Database(store) as db:
        assert ledger_mismatches(db.con) == []
    _behind_the_verbs(store, statement)
    with pytest.raises(StoreError) as refused:
        valuechain.open(store, read_only=read_only)
    message = refused.value.render()
    assert str(store) in message and "disagree" in message and "import the sources again" in message
    for fragment in named:
        assert fragment in message
    with pytest.raises(StoreError):  # released after the refusal, and refused again
        Database(store)


def test_duplicates_and_conflicts_keep_the_ledger_in_step(
    tmp_path: Path, otlp: SimpleNamespace, write: Write
) -> None:
    same = otlp.request(otlp.span(1), otlp.span(2))
    changed = otlp.request(otlp.span(1, name="changed"), otlp.span(4))
    paths = [write("a.json", same), write("b.json", same), write("c.json", changed)]
    paths.append(write("d.ndjson", otlp.ndjson(same, changed)))
    with valuechain.open(tmp_path / "s.duckdb") as store:
        assert store.import_paths(paths).ok
        assert ledger_mismatches(store.db.con) == []
        assert store.sql("SELECT count(*) FROM spans WHERE dup_group IS NOT NULL").item() > 0


def test_a_mismatch_describes_itself() -> None:
    assert LedgerMismatch(3, "x.json", 5, 2).describe() == "x.json lists 5 spans, 2 stored"
    assert LedgerMismatch(4, None, 0, 7).describe() == (
        "7 spans belong to no listed source (source id 4)"
    )
