"""One source's import, batch by batch: all or nothing, undone after a failure or a crash."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

import valuechain
from valuechain.errors import StoreError
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database, SourceWriter, sqlfiles, writer

Write = Callable[[str, bytes | dict[str, Any]], Path]
COMMIT_ROWS = writer.COMMIT_ROWS  # the default, before any test sets it


Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]


def test_a_failed_commit_rolls_back_everything(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
    before = dump(db)
    real = sqlfiles.folder

    def broken(name: str) -> tuple[sqlfiles.SqlFile, ...]:
        files = real(name)
        if name != "ingest":
            return files
        # fail after spans, attributes, events and links were written, before the ledger row
        return tuple(
            sqlfiles.SqlFile(f.name, "SELECT error('disk on fire')")
            if f.name.endswith("_insert_issues.sql")
            else f
            for f in files
        )

    monkeypatch.setattr(sqlfiles, "folder", broken)
    path = write("second.json", otlp.rich_request())
    with pytest.raises(duckdb.Error, match="disk on fire"):
        import_paths(db, [path])
    assert dump(db) == before
    monkeypatch.setattr(sqlfiles, "folder", real)
    (source,) = import_paths(db, [path]).sources  # not mistaken for already imported
    assert source.outcome == "imported"


def test_the_writer_refuses_a_rejected_source(db: Database, dump: Dump) -> None:
    decoded = valuechain.decode(b"not json")
    assert decoded.status == "rejected"
    before = dump(db)
    with pytest.raises(ValueError, match="never written"), SourceWriter(db, "x", 1) as writer:
        writer.finish(decoded.ledger(), [])
    assert dump(db) == before


def _batched() -> ImportOptions:
    """Options that cut an NDJSON source into one batch per line or so (several commits)."""
    return ImportOptions(decode=dataclasses.replace(ImportOptions().decode, batch_bytes=64))


def _failing_on_batch(
    monkeypatch: pytest.MonkeyPatch, n: int, commit_rows: int = 1
) -> dict[str, int]:
    """The ``n``-th batch of the next import fails after the earlier ones were written (and,
    at ``commit_rows`` 1, each committed); the returned dict tells how many spans the import's
    transaction saw stored and marked conflicting at that moment, and how many were committed
    (what another connection sees)."""
    monkeypatch.setattr(writer, "COMMIT_ROWS", commit_rows)
    real_gather = SourceWriter.gather
    seen = {"calls": 0}

    def gather(self: SourceWriter, *args: Any) -> None:
        seen["calls"] += 1
        if seen["calls"] == n:
            counts = self.con.execute(
                "SELECT count(*), count(dup_group) FROM core.spans"
            ).fetchone()
            committed = self.con.cursor().execute("SELECT count(*) FROM core.spans").fetchone()
            assert counts is not None and committed is not None
            seen["spans"], seen["marked"] = counts
            seen["committed"] = committed[0]
            raise RuntimeError("disk on fire")
        real_gather(self, *args)

    monkeypatch.setattr(SourceWriter, "gather", gather)
    return seen


def test_a_source_failing_after_committed_batches_leaves_the_store_as_it_was(
    db: Database, otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the stored span 1 and the new source's first span 1 conflict: the import marks the stored
    # one with a dup_group in its first batch, and undoing the import must clear it again
    assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
    before = dump(db)
    lines = [otlp.request(otlp.span(1, name="changed"))]
    lines += [otlp.request(otlp.span(n)) for n in range(2, 12)]
    path = write("second.jsonl", otlp.ndjson(*lines))
    seen = _failing_on_batch(monkeypatch, 4)
    with pytest.raises(RuntimeError, match="disk on fire"):
        import_paths(db, [path], _batched())
    assert seen["spans"] > 2 and seen["marked"] == 2
    assert seen["committed"] == seen["spans"] - 1  # earlier batches had committed, not the last
    assert dump(db) == before
    monkeypatch.undo()
    (source,) = import_paths(db, [path], _batched()).sources
    assert source.outcome == "imported"
    marked = db.sql("SELECT count(*) FROM core.spans WHERE dup_group IS NOT NULL").item()
    assert marked == 2


def test_an_import_cut_short_by_a_crash_is_undone_when_the_store_next_opens(
    tmp_path: Path, otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "crash.duckdb"
    with Database(store) as db:
        assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
        before = dump(db)
    lines = [otlp.request(otlp.span(n, trace_id=f"{n:032x}")) for n in range(2, 12)]
    path = write("second.jsonl", otlp.ndjson(*lines))
    seen = _failing_on_batch(monkeypatch, 4)
    monkeypatch.setattr(SourceWriter, "abort", lambda self: None)  # the process dies here
    with Database(store) as db, pytest.raises(RuntimeError, match="disk on fire"):
        import_paths(db, [path], _batched())
    assert seen["spans"] > 2 and seen["committed"] == seen["spans"] - 1  # batches had committed
    monkeypatch.undo()
    with pytest.raises(StoreError, match="interrupted") as refused:
        Database(store, read_only=True)
    assert "undoes the unfinished import" in refused.value.render()
    with Database(store) as db:
        assert dump(db) == before
        (source,) = import_paths(db, [path], _batched()).sources
        assert source.outcome == "imported"
        assert db.sql("SELECT count(*) FROM core.spans").item() == 11


@pytest.mark.parametrize("commit_rows", [1, 15, COMMIT_ROWS])
def test_batches_are_written_and_committed_in_groups_of_commit_rows(
    db: Database,
    otlp: SimpleNamespace,
    write: Write,
    dump: Dump,
    monkeypatch: pytest.MonkeyPatch,
    commit_rows: int,
) -> None:
    # every batch (one line) holds 5 rows: a span, its resource, its scope, two attributes;
    # batches are gathered until they reach ``commit_rows`` (15: three batches), written as
    # one, and committed when the next batch arrives
    assert import_paths(db, [write("first.json", otlp.request(otlp.span(1)))]).ok
    before = dump(db)
    lines = [otlp.request(otlp.span(n, trace_id=f"{n:032x}")) for n in range(2, 12)]
    path = write("second.jsonl", otlp.ndjson(*lines))
    seen = _failing_on_batch(monkeypatch, 9, commit_rows)
    with pytest.raises(RuntimeError, match="disk on fire"):
        import_paths(db, [path], _batched())
    if commit_rows == 1:  # each batch written as it came, committed when the next came
        assert seen["spans"] == 1 + 8 and seen["committed"] == seen["spans"] - 1
    elif commit_rows == COMMIT_ROWS:  # every batch still gathered: nothing written
        assert seen["spans"] == seen["committed"] == 1
    else:  # two groups written and committed, batches 7 and 8 gathered
        assert (seen["committed"], seen["spans"]) == (1 + 6, 1 + 6)
    assert dump(db) == before  # and whatever was committed is undone
    monkeypatch.undo()
    assert import_paths(db, [path], _batched()).ok
    assert db.sql("SELECT count(*) FROM core.spans").item() == 11


def test_a_source_awaits_its_derivation_from_the_transaction_that_commits_it(
    db: Database, otlp: SimpleNamespace, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [otlp.request(otlp.span(n, trace_id=f"{n:032x}")) for n in range(1, 6)]
    path = write("five.jsonl", otlp.ndjson(*lines))
    _failing_on_batch(monkeypatch, 3)
    with pytest.raises(RuntimeError, match="disk on fire"):  # batches committed, then undone
        import_paths(db, [path], dataclasses.replace(_batched(), derive=False))
    assert db.pending_derivation() is None  # nothing committed for good: nothing owed
    monkeypatch.undo()
    assert import_paths(db, [path], dataclasses.replace(_batched(), derive=False)).ok
    rows = db.sql("SELECT source_id, trace_id, analyzer_version FROM core.pending_derivations")
    assert sorted(rows.rows()) == [(1, bytes.fromhex(f"{n:032x}"), 12) for n in range(1, 6)]
    db.clear_pending([1])
    assert db.pending_derivation() is None


def test_a_store_is_the_same_whether_batches_commit_alone_or_together(
    otlp: SimpleNamespace, write: Write, dump: Dump, monkeypatch: pytest.MonkeyPatch
) -> None:
    # duplicates and a conflict in later batches: deduplication reads this source's rows
    # written by earlier batches, committed or still in the open transaction
    lines = [otlp.request(otlp.span(n)) for n in range(1, 12)]
    lines += [otlp.request(otlp.span(n)) for n in (3, 5)]
    lines += [otlp.request(otlp.span(7, name="other"))]
    path = write("a.jsonl", otlp.ndjson(*lines))
    stores = []
    for commit_rows in (1, 15, COMMIT_ROWS):
        monkeypatch.setattr(writer, "COMMIT_ROWS", commit_rows)
        with Database() as db:
            (source,) = import_paths(db, [path], _batched()).sources
            assert source.outcome == "imported"
            stored = dump(db)
            stored["sources"] = [row[:-1] for row in stored["sources"]]  # imported_at differs
            stores.append(stored)
            counts = "SELECT code, sum(occurrences) FROM core.issues GROUP BY code"
            codes = dict(db.con.execute(counts).fetchall())
            assert codes["I_DUPLICATE_IDENTICAL"] == 2
            assert codes["W_DUPLICATE_CONFLICT"] == 2  # one key, two versions
    assert stores[0] == stores[1] == stores[2]
