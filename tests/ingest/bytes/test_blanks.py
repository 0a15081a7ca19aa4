"""ingest/bytes/blanks.py and its use by framing.py: a run of whitespace longer than a batch is
counted, not held (issue 38.2), and nothing read changes — whitespace inside a string comes
back byte for byte, records after a run keep their line and byte offset.

Each source is decoded twice: in parts of a 64 KiB batch (a run over it is a gap) and in one
batch of 1 GiB (held whole, as before gaps): both must give the same tables and issues.
"""

from __future__ import annotations

import gzip
import json
from types import SimpleNamespace

import orjson
import pytest
from ingest_builders import ndjson_lines
from ingest_checks import same

from valuechain.ingest.bytes.blanks import Gap, Pieces
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export

MIB = 1 << 20
SMALL_BATCH, ONE_BATCH = 64 << 10, 1 << 30


def _both(data: bytes) -> tuple[DecodedSource, DecodedSource]:
    """``data`` decoded in small parts, and in one part."""
    parts = decode_export(data, "s.json.gz", DecodeOptions(batch_bytes=SMALL_BATCH))
    whole = decode_export(data, "s.json.gz", DecodeOptions(batch_bytes=ONE_BATCH))
    return parts, whole


def test_a_blank_run_is_held_once_and_given_back_byte_for_byte() -> None:
    run = [b" " * MIB] * 5 + [b"\n\t" * (MIB // 2)] * 3
    pieces = Pieces([b"{", *run, b"}"], held=MIB)
    assert pieces.read() == b"{"
    assert pieces.read() == b" " * MIB  # up to ``held``, passed on as it is
    gap = pieces.read()
    assert isinstance(gap, Gap)
    assert len(gap.runs) == 2  # each run of identical pieces once
    assert (gap.size, gap.newlines) == (7 * MIB, 3 * MIB // 2)
    assert gap.restored() == b"".join(run[1:])
    assert gap.last_line() == b"\t"
    assert pieces.read() == b"}"
    assert pieces.read() is None


def test_a_blank_run_at_the_end_leaves_its_last_byte() -> None:
    pieces = Pieces([b"{}", b" " * MIB, b" " * MIB, b"  \n"], held=MIB)
    assert [pieces.read() for _ in range(4)] == [b"{}", b" " * MIB, b"\n", None]


def test_binary_pieces_are_never_a_gap() -> None:
    pieces = Pieces([b"\x0a", b" " * MIB, b" " * MIB], held=0)
    pieces.text = False
    assert [pieces.read() for _ in range(4)] == [b"\x0a", b" " * MIB, b" " * MIB, None]


@pytest.mark.parametrize("pretty", [False, True], ids=["one-line", "pretty"])
def test_a_document_then_a_long_blank_run_reads_as_the_document(
    otlp: SimpleNamespace, pretty: bool
) -> None:
    request = otlp.request(otlp.span(1), otlp.span(2, spanId="0x01"), otlp.span(3))
    doc = json.dumps(request, indent=2 if pretty else None).encode()
    parts, whole = _both(gzip.compress(doc + b"\n" + b" \n  " * (2 * MIB)))
    same(parts, whole)
    # the span with the bad id is quarantined
    assert (parts.span_count, parts.bytes_decoded) == (2, len(doc) + 8 * MIB + 1)
    alone = decode_export(doc, "s.json.gz")
    assert parts.issues == alone.issues  # the bad id found where it is, once


def test_whitespace_inside_a_string_is_kept(otlp: SimpleNamespace) -> None:
    value = " " * (3 * MIB) + "end"
    request = otlp.request(otlp.span(1, attributes=[{"key": "k", "value": {"stringValue": value}}]))
    parts, whole = _both(gzip.compress(orjson.dumps(request) + b"\n" + b" " * (3 * MIB)))
    same(parts, whole)
    assert parts.status == "ok"


def test_ndjson_after_a_blank_run_keeps_its_lines_and_offsets(otlp: SimpleNamespace) -> None:
    lines = ndjson_lines(otlp, 3)
    bad = orjson.dumps(otlp.request(otlp.span(4, spanId="0x01")))
    gap = b"\n" + (b" " * 1023 + b"\n") * (3 * MIB // 1024) + b"   "
    data = lines[0] + b"\n" + lines[1] + gap + bad + b"\n" + lines[2] + b"\n"
    parts, whole = _both(gzip.compress(data))
    same(parts, whole)
    (found,) = parts.issues
    assert (found.line, found.byte_offset) == (3 * MIB // 1024 + 3, data.index(bad) - 3)
    assert parts.span_count == 3  # the bad one quarantined


def test_a_run_of_spaces_in_pieces_of_many_lengths_holds_no_piece() -> None:
    """A decompressor's spaces come in full chunks and in what is left of an input chunk:
    each change of length was a piece held (20–30 MB a GiB, issue 38.2); a byte repeated is
    held as the byte and its length."""
    gap = Gap()
    run = [b" " * MIB, b" " * (MIB - 7), b" " * MIB, b" " * 100, b" " * MIB] * 3
    for piece in run:
        gap.count(piece)
    assert all(len(unit) == 1 for unit, *_ in gap.runs)
    assert gap.size == sum(map(len, run)) and gap.restored() == b"".join(run)
    assert gap.last_line() == b"".join(run) and gap.last_byte() == b" "
