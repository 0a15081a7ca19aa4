"""An import reads new bytes once (issue 16): hashed as they are decoded, so the ledger's sha256
and size are those of the very bytes decoded; only a file of a size some stored source has is
hashed first, so that the same bytes again are `unchanged` at the cost of one read."""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.source import parts
from valuechain.pipeline import imports, small_files
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database, writer
from valuechain.synth import SynthConfig, write_export

Write = Callable[[str, bytes | dict[str, Any]], Path]
Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times each file is read from its start."""
    counted: dict[str, int] = {}
    original = imports.file_chunks

    def counting(path: Path, *args: Any, **kwargs: Any) -> Iterator[bytes]:
        counted[path.name] = counted.get(path.name, 0) + 1
        return original(path, *args, **kwargs)

    monkeypatch.setattr(imports, "file_chunks", counting)
    return counted


def _ledger(db: Database) -> list[tuple[str, str, int]]:
    rows = db.sql("SELECT path, sha256, bytes_raw FROM imports ORDER BY path").rows()
    return [(Path(path).name, sha, size) for path, sha, size in rows]


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_new_bytes_are_read_once_and_recorded_by_what_was_read(
    db: Database, otlp: SimpleNamespace, write: Write, reads: dict[str, int], packed: bool
) -> None:
    data = otlp.dumps(otlp.request(otlp.span(1), otlp.span(2)))
    data = gzip.compress(data) if packed else data
    path = write("a.json.gz" if packed else "a.json", data)
    (source,) = import_paths(db, [path]).sources
    assert source.outcome == "imported" and source.bytes == len(data)
    assert reads == {path.name: 1}
    assert _ledger(db) == [(path.name, hashlib.sha256(data).hexdigest(), len(data))]
    decoded = decode_export(data)  # the library hashes what it decodes the same way
    assert (decoded.sha256, decoded.bytes_raw) == (hashlib.sha256(data).hexdigest(), len(data))


def test_bytes_of_a_stored_size_are_hashed_first(
    db: Database,
    otlp: SimpleNamespace,
    write: Write,
    reads: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a file over the small-file bound: a small one is read once whatever its size (whole,
    # into memory, then hashed and decoded from there: `pipeline.small_files`)
    monkeypatch.setattr(small_files, "SMALL_FILE_BYTES", 0)
    data = otlp.dumps(otlp.request(otlp.span(1, name="aaaa")))
    first = write("first.json", data)
    import_paths(db, [first])
    same = write("same.json", data)
    twin = write("twin.json", data.replace(b'"aaaa"', b'"bbbb"'))  # other bytes, same size
    assert twin.stat().st_size == len(data) and twin.read_bytes() != data

    def no_decode(*args: Any) -> None:
        raise AssertionError("bytes already stored were decoded")

    with monkeypatch.context() as patched:
        patched.setattr("valuechain.ingest.source.stream.decode_part", no_decode)
        (unchanged,) = import_paths(db, [same]).sources
    assert unchanged.outcome == "unchanged" and reads["same.json"] == 1
    (imported,) = import_paths(db, [twin]).sources
    assert imported.outcome == "imported" and reads["twin.json"] == 2  # hashed, then decoded
    assert _ledger(db) == [
        ("first.json", hashlib.sha256(data).hexdigest(), len(data)),
        ("twin.json", hashlib.sha256(twin.read_bytes()).hexdigest(), len(data)),
    ]


def test_a_file_read_as_new_that_turns_out_stored_is_unchanged_and_writes_nothing(
    db: Database,
    otlp: SimpleNamespace,
    write: Write,
    dump: Dump,
    reads: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file that grows or shrinks between its size and its read (here: a size misread) may
    hold bytes already stored after all: its batches are undone and it reads `unchanged`."""
    data = otlp.dumps(otlp.rich_request())
    import_paths(db, [write("first.json", data)])
    before = dump(db)
    monkeypatch.setattr(imports, "_size", lambda path: len(data) + 1)
    monkeypatch.setattr(writer, "COMMIT_ROWS", 1)  # committed groups are undone too
    (source,) = import_paths(db, [write("again.json", data)]).sources
    assert source.outcome == "unchanged" and source.bytes == len(data)
    assert reads["again.json"] == 1
    assert dump(db) == before


def _piped(fifo: Path, data: bytes) -> threading.Thread:
    """A writer that feeds ``data`` through the named pipe ``fifo`` once it is opened."""

    def feed() -> None:
        with fifo.open("wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return writer


def test_a_pipe_is_read_once_and_the_same_bytes_again_are_unchanged(
    db: Database,
    otlp: SimpleNamespace,
    tmp_path: Path,
    dump: Dump,
    reads: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stream that can be read only once (``<(zcat …)``, ``/dev/stdin``) is never hashed
    first: it is decoded as it is read, named in the ledger by its hash (every ``<(…)`` is
    some /dev/fd/N), and bytes already stored are found by their hash."""
    data = otlp.ndjson(otlp.request(otlp.span(1)), otlp.request(otlp.span(2)))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    feeding = _piped(fifo, data)
    (source,) = import_paths(db, [fifo]).sources
    feeding.join(timeout=10)
    digest = hashlib.sha256(data).hexdigest()
    assert source.outcome == "imported" and source.bytes == len(data) and reads == {"pipe": 1}
    assert source.path == f"{fifo} (pipe {digest[:12]})"
    assert _ledger(db) == [(f"pipe (pipe {digest[:12]})", digest, len(data))]
    before = dump(db)
    monkeypatch.setattr(writer, "COMMIT_ROWS", 1)  # committed groups are undone too
    feeding = _piped(fifo, data)
    (again,) = import_paths(db, [fifo]).sources
    feeding.join(timeout=10)
    assert again.outcome == "unchanged" and reads == {"pipe": 2}
    assert dump(db) == before


def test_only_the_import_takes_a_pipe(tmp_path: Path) -> None:
    """Scale-out reads each file by its path on other machines: a pipe is no file there."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert imports.plan([fifo, fifo], pipes=True)[0] == [fifo]  # named twice: read once
    files, missing, _ = imports.plan([fifo])
    assert files == [] and [m.path for m in missing] == [str(fifo)]


def _timeless(tables: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """A store's rows without the times it was written at (two stores written one by one)."""
    return {
        name: [tuple(v for v in row if not isinstance(v, datetime)) for row in rows]
        for name, rows in tables.items()
    }


def _document_items(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each run of a document's items the decoder was given was refused."""
    refusals: list[bool] = []
    original = parts.document_items

    def counted(part: Any, options: Any) -> Any:
        result = original(part, options)
        refusals.append(result.refused)
        return result

    monkeypatch.setattr(parts, "document_items", counted)
    return refusals


@pytest.mark.parametrize("refused", ["", "head", "schema url"], ids=["streamed", "head", "url"])
def test_a_large_document_streams_in_runs_of_spans_or_is_read_again_whole(
    tmp_path: Path,
    dump: Dump,
    reads: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
    refused: str,
) -> None:
    """A single document over a batch streams in runs of its spans, read once, each group
    committed on its own (the runs after the first go on in an item and scope a group before
    began); when a run cannot be reopened where it starts (here: in an item that starts with
    its scopeSpans), every batch written is undone and the file is read again, whole. Either
    way the store is the one the whole document gives. So it is when the decoder refuses a
    run: here one that goes on in an item whose schema URL follows its list (the item's
    first run, which wrote its resource row, did not see it)."""
    path = write_export(tmp_path / "doc.json", SynthConfig(runs=3, seed=7)).path
    request = orjson.loads(path.read_bytes())
    item = request["resourceSpans"][2]
    if refused == "head":  # a run inside that item cannot be reopened
        request["resourceSpans"][2] = {"scopeSpans": item["scopeSpans"], **item}
    elif refused:
        item["schemaUrl"] = "https://opentelemetry.io/schemas/1.26.0"
    path.write_bytes(orjson.dumps(request))
    monkeypatch.setattr(writer, "COMMIT_ROWS", 1)  # committed groups are undone too
    refusals = _document_items(monkeypatch)
    with Database(tmp_path / "streamed.duckdb") as db:
        decode = DecodeOptions(batch_bytes=50_000, workers=2)
        (source,) = import_paths(db, [path], ImportOptions(decode=decode, derive=False)).sources
        streamed = _timeless(dump(db))
    assert source.outcome == "imported"
    assert len(refusals) > 1 and refusals.count(True) == (refused == "schema url")
    assert reads == {"doc.json": 2 if refused else 1}
    with Database(tmp_path / "whole.duckdb") as db:
        whole = DecodeOptions(batch_bytes=1 << 30)
        import_paths(db, [path], ImportOptions(decode=whole, derive=False))
        assert _timeless(dump(db)) == streamed


def test_a_large_document_through_a_pipe_is_read_once_whole(
    db: Database, tmp_path: Path, reads: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe cannot be read again should the decoder refuse a run of items: it is read whole."""
    data = write_export(tmp_path / "doc.json", SynthConfig(runs=2, seed=7)).path.read_bytes()
    refusals = _document_items(monkeypatch)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    feeding = _piped(fifo, data)
    decode = DecodeOptions(batch_bytes=50_000)
    (source,) = import_paths(db, [fifo], ImportOptions(decode=decode, derive=False)).sources
    feeding.join(timeout=10)
    assert source.outcome == "imported" and reads == {"pipe": 1} and refusals == []
