"""Issue locations (TRACE-FORMAT §5.1): the line and column of the offending value inside a
pretty-printed document, not the document's first line; NDJSON keeps its line numbers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from valuechain.ingest.bytes.json_locate import Locator
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.source.issue_log import pointer

BAD_PATH = "resourceSpans[0].scopeSpans[0].spans[1].spanId"


def _pretty(otlp: SimpleNamespace) -> bytes:
    request = otlp.request(otlp.span(1), otlp.span(2, spanId="s01"))
    return json.dumps(request, indent=2).encode()


def _where(text: bytes, needle: bytes, nth: int = 0) -> tuple[int, int, int]:
    """(line, column, byte offset) of the ``nth`` occurrence of ``needle``, found by hand."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line = text.count(b"\n", 0, offset) + 1
    return line, offset - (text.rfind(b"\n", 0, offset) + 1) + 1, offset


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])
def test_a_pretty_document_points_at_the_value(otlp: SimpleNamespace, fast: bool) -> None:
    text = _pretty(otlp)
    out = decode_export(text, "pretty.json", DecodeOptions(fast=fast))
    (issue,) = [i for i in out.issues if i.code.value == "E_BAD_ID_ENCODING"]
    line, column, offset = _where(text, b'"s01"')
    assert line > 1
    assert (issue.line, issue.column, issue.byte_offset) == (line, column, offset)
    assert pointer(issue) == f"line {line}, column {column}: {BAD_PATH}"


def test_concatenated_documents_point_into_the_right_one(otlp: SimpleNamespace) -> None:
    text = _pretty(otlp) + b"\n" + _pretty(otlp).replace(b"0000000000000001", b"0000000000000003")
    out = decode_export(text, "two.json")
    issues = [i for i in out.issues if i.code.value == "E_BAD_ID_ENCODING"]
    assert [(i.line, i.column, i.byte_offset) for i in issues] == [
        _where(text, b'"s01"', 0),
        _where(text, b'"s01"', 1),
    ]


def test_ndjson_keeps_the_line_of_the_record(otlp: SimpleNamespace) -> None:
    lines = [otlp.request(otlp.span(1)), otlp.request(otlp.span(2, spanId="s01"))]
    text = otlp.ndjson(*lines)
    for batch_bytes in (1 << 20, 64):  # read whole, and in parts: the same place
        out = decode_export(text, "two.jsonl", DecodeOptions(batch_bytes=batch_bytes))
        (issue,) = [i for i in out.issues if i.code.value == "E_BAD_ID_ENCODING"]
        assert (issue.line, issue.column, issue.byte_offset) == (2, None, text.index(b"\n") + 1)


def test_the_locator_reads_keys_as_the_decoder_does() -> None:
    text = b'{"resource_spans": [ {"x": "]}\\"[", "scope_spans": [{"spans": [1, {"a": [] }]}]} ]}'
    locator = Locator(text, 0)
    at = locator.offset("resourceSpans[0].scopeSpans[0].spans[1].a")
    assert at is not None and text[at : at + 2] == b"[]"
    assert locator.offset("resourceSpans[0].scopeSpans[0].spans[2]") is None
    assert locator.offset("resourceSpans[0].missing") is None
    first = locator.offset("resourceSpans[0].x")  # passed already: remembered, not rescanned
    assert first is not None and text[first : first + 6] == b'"]}\\"['
