"""A single document cut between its spans and items (`bytes/items.py`, `Framer`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ingest_checks import same

from valuechain.ingest import decode as decode_module
from valuechain.ingest.bytes import framing, items
from valuechain.ingest.bytes.items import DocumentRefused
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.source import native_parts
from valuechain.ingest.source import parts as parts_module


def _span(n: int, k: int, pad: int) -> dict[str, object]:
    return {
        "traceId": f"{n + 1:032x}",
        "spanId": f"{k + 1:016x}",
        "name": "x" * pad,
        "kind": 1,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
    }


def _item(n: int, *, pad: int = 0, spans: int = 3) -> dict[str, Any]:
    scopes = [
        {"scope": {"name": f"s{j}"}, "spans": [_span(n, k, pad) for k in range(spans)]}
        for j in range(2)
    ]
    return {"resource": {"attributes": []}, "scopeSpans": scopes}


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def _parts(data: bytes, batch: int, chunk: int = 7) -> list[framing.Part]:
    return list(framing.Framer(_chunks(data, chunk), batch, documents=items.SPANS))


def _check(parts: list[framing.Part], request: dict[str, Any]) -> None:
    """The parts hold the document's list, each part parses as the decoder reopens and
    closes it, and its first span is the one at the place it says."""
    found = []
    for part in parts:
        assert isinstance(part, framing.Items)
        found.append(part.data)
        closing = items.INSIDE if part.inside else b""
        run = orjson.loads(items.OPEN + part.head + part.data + closing + items.CLOSE)
        first = run["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
        item = request["resourceSpans"][part.first_item]
        assert first == item["scopeSpans"][part.first_scope]["spans"][part.first_span]
        assert bool(part.head) == (part.first_span > 0 or part.first_scope > 0)
    assert orjson.loads(items.OPEN + b",".join(found) + items.CLOSE) == request
    assert [p.final for p in parts if isinstance(p, framing.Items)][-1]


@pytest.mark.parametrize("indent", [False, True], ids=["compact", "pretty"])
@pytest.mark.parametrize("batch", [40, 300, 1_000])
def test_a_document_is_cut_between_its_items_and_nothing_is_lost(indent: bool, batch: int) -> None:
    request = {"resourceSpans": [_item(n, pad=n * 30) for n in range(12)]}
    data = orjson.dumps(request, option=orjson.OPT_INDENT_2 if indent else 0)
    parts = _parts(data, batch)
    assert len(parts) > 1 and all(isinstance(p, framing.Items) for p in parts)
    _check(parts, request)
    assert any(p.head for p in parts if isinstance(p, framing.Items))  # cut inside items
    assert [p.final for p in parts if isinstance(p, framing.Items)] == [False] * (
        len(parts) - 1
    ) + [True]


@given(
    st.lists(st.integers(0, 200), min_size=1, max_size=20),
    st.integers(64, 2_000),  # the head of the document fits in the first batch read
    st.integers(1, 500),
)
def test_any_document_reads_back_as_its_items(pads: list[int], batch: int, chunk: int) -> None:
    request = {"resourceSpans": [_item(n, pad=pad) for n, pad in enumerate(pads)]}
    data = b"\xef\xbb\xbf " + orjson.dumps(request)  # one line ended by a newline is NDJSON
    parts = _parts(data, batch, chunk)
    if len(data) <= batch:  # no more than one batch: read whole
        assert parts == [framing.Whole(data)]
        return
    _check(parts, request)


def test_a_small_document_and_ndjson_are_not_cut() -> None:
    one = orjson.dumps({"resourceSpans": [_item(1), _item(2)]})
    assert _parts(one, 1 << 20) == [framing.Whole(one)]
    ndjson = b"\n".join([one] * 50) + b"\n"  # the first line parses: records, not a document
    assert all(isinstance(p, framing.Lines) for p in _parts(ndjson, 10_000))
    assert all(isinstance(p, framing.Whole) for p in framing.Framer([one * 3], 10))


TAILS = {
    "after the document": b"]}, 1",
    "cut in the list": b"]",
    "another key": b'],"other":[]}',  # these end in "]}": the decoder refuses them
    "cut in an item": b"",
    "twice": b'],"resourceSpans":[]}',
    "then a record": b"]}\n{}",  # NDJSON: its first line streams, the next one is a line
}


def _document(tail: bytes) -> bytes:
    return b'{"resourceSpans":[' + b",".join(orjson.dumps(_item(n)) for n in range(8)) + tail


@pytest.mark.parametrize("tail", list(TAILS)[:2])
def test_a_document_that_does_not_end_as_one_is_refused(tail: str) -> None:
    with pytest.raises(DocumentRefused):
        _parts(_document(TAILS[tail]), 100)


@pytest.mark.parametrize("tail", list(TAILS))
def test_a_refused_document_decodes_as_the_reference_reads_it_whole(tail: str) -> None:
    data = _document(TAILS[tail])
    streamed = decode_export(data, "d.json", DecodeOptions(batch_bytes=100))
    exact = decode_export(data, "d.json", DecodeOptions(fast=False))
    same(streamed, exact)
    assert (streamed.status, streamed.issues) == (exact.status, exact.issues)


def test_an_item_longer_than_a_batch_is_read_on() -> None:
    request = {"resourceSpans": [_item(0), _item(1, pad=5_000), _item(2)]}
    parts = _parts(orjson.dumps(request), 100, chunk=50)
    _check(parts, request)
    assert max(len(p.data) for p in parts if isinstance(p, framing.Items)) > 5_000


SPAN_A = b'{"traceId":"a","spanId":"b","name":"x"}'
SPAN_B = b'{ "traceId" : "c", "spanId":"d", "parentSpanId":"e", "flags":1,\n "name":"y"}'


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        (b"[" + SPAN_A + b"," + SPAN_B + b"]", (len(SPAN_A) + 2, True)),
        (b"[" + SPAN_A + b", \n" + SPAN_B + b"]", (len(SPAN_A) + 4, True)),
        (b"[" + SPAN_A + b"]", (-1, False)),  # after the list's [: a part cannot end there
        (b'[{"resource":{}},{"resource":{}}]', (17, False)),  # no span: between items
        (b'{"links":[{"traceId":"a","spanId":"b"},{"traceId":"c","spanId":"d"}]}', (-1, False)),
        (b'[{"scopeSpans":[],"resource":{}},{"scopeSpans":[]}]', (-1, False)),  # other orders
        (b'[{"k":"traceId"},{"k":{"resource":1}}]', (-1, False)),  # values, not starts
    ],
    ids=["spans", "spaces", "first", "items", "links", "orders", "values"],
)
def test_a_part_ends_only_where_a_span_or_an_item_starts(text: bytes, cut: object) -> None:
    assert items.last_cut(text) == cut


def test_ndjson_whose_lines_are_longer_than_a_batch_streams_its_first_line_in_items() -> None:
    """A first line over a batch may be a document: it is read as one, in runs of its items,
    until the line ends and another record follows — NDJSON, read on as lines."""
    lines = [orjson.dumps({"resourceSpans": [_item(n), _item(n + 10)]}) for n in range(6)]
    data = b"\n".join(lines) + b"\n"
    framer = framing.Framer(_chunks(data, 7), 200, documents=items.SPANS)
    parts = list(framer)
    cut = next(k for k, p in enumerate(parts) if isinstance(p, framing.Lines))
    assert cut > 1 and all(isinstance(p, framing.Items) for p in parts[:cut])
    _check(parts[:cut], orjson.loads(lines[0]))
    assert all(isinstance(p, framing.Lines) for p in parts[cut:])
    first = parts[cut]
    assert isinstance(first, framing.Lines)
    assert (first.start, first.first_line) == (len(lines[0]) + 1, 2)
    assert b"".join(p.data for p in parts[cut:]) == data[len(lines[0]) + 1 :]
    assert framer.framing == "stream"


@pytest.mark.parametrize(
    "shape", ["ndjson", "ndjson, crlf", "pretty, then ndjson", "concatenated pretty"]
)
def test_a_document_followed_by_more_records_decodes_as_the_reference_reads_it(
    shape: str,
) -> None:
    requests = [{"resourceSpans": [_item(n), _item(n + 10, pad=50)]} for n in range(5)]
    compact = [orjson.dumps(r) for r in requests]
    pretty = [orjson.dumps(r, option=orjson.OPT_INDENT_2) for r in requests]
    data = {
        "ndjson": b"\n".join(compact) + b"\n",
        "ndjson, crlf": b"\r\n".join(compact),
        "pretty, then ndjson": pretty[0] + b"\n" + b"\n".join(compact[1:]),
        "concatenated pretty": b"\n".join(pretty),
    }[shape]
    streamed = decode_export(data, "d.json", DecodeOptions(batch_bytes=150))
    exact = decode_export(data, "d.json", DecodeOptions(fast=False))
    same(streamed, exact)
    assert (streamed.status, streamed.framing, streamed.issues) == (
        exact.status,
        exact.framing,
        exact.issues,
    )


def test_a_run_that_cannot_be_reopened_where_it_starts_is_refused() -> None:
    """A cut inside an item whose first key is not its resource: the item's head is not found."""
    item = _item(1, pad=100, spans=20)
    request = {"resourceSpans": [_item(0), {"scopeSpans": item["scopeSpans"], **item}]}
    with pytest.raises(DocumentRefused, match="does not start with its resource"):
        _parts(orjson.dumps(request), 500, chunk=100)


def test_keys_as_values_neither_count_nor_refuse() -> None:
    """The words of the keys as string values (an attribute named "spans") are not keys."""
    item = _item(1, pad=100, spans=20)
    values = [{"key": "spans", "value": {"stringValue": "scopeSpans"}}]
    item["resource"]["attributes"] = values
    for scope in item["scopeSpans"]:
        for span in scope["spans"]:
            span["attributes"] = [{"key": "startTimeUnixNano", "value": {"stringValue": "spans"}}]
    request = {"resourceSpans": [_item(0), item, _item(2)]}
    parts = _parts(orjson.dumps(request), 500, chunk=100)
    _check(parts, request)
    assert any(p.head for p in parts if isinstance(p, framing.Items))
    assert items.keys(b'{"key":"spans","spans" :[]}', items.SCOPE_KEY) == [15]


def _spans_doc(*, newline_between: bool) -> bytes:
    pad = [{"key": "pad", "value": {"stringValue": "x" * 150}}]
    spans = [orjson.dumps({**_span(1, k, 0), "attributes": pad}) for k in range(2)]
    head = b'{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{"name":"lib"},"spans":['
    return head + (b",\n" if newline_between else b",").join(spans) + b"]}]}]}"


@pytest.mark.parametrize(
    "shape",
    ["newline at a cut, then a pretty document", "blank line, one line, then another line"],
)
def test_the_lines_after_a_streamed_first_document_are_where_the_reference_reads_them(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Newlines a cut drops (between two spans) or before the document still count: a
    document on several lines followed by another is read whole; after one on one line the
    next lines keep their numbers (its issues say where they are)."""
    monkeypatch.setattr(decode_module, "READ_CHUNK", 50)  # small reads: many cuts
    second = {"resourceSpans": [_item(3)]}
    if shape.startswith("newline"):
        data = _spans_doc(newline_between=True) + b"\n"
        data += json.dumps(second, indent=2).encode() + b"\n"  # ": " after each key
    else:
        broken = orjson.dumps(second)[:-5]  # a cut line: an issue with its line number
        data = b"\n" + _spans_doc(newline_between=False) + b"\n" + broken + b"\n"
    streamed = decode_export(data, "d.json", DecodeOptions(batch_bytes=300))
    exact = decode_export(data, "d.json", DecodeOptions(fast=False))
    same(streamed, exact)
    assert (streamed.status, streamed.accounting) == (exact.status, exact.accounting)
    assert [(i.code, i.line) for i in streamed.issues] == [(i.code, i.line) for i in exact.issues]


def test_a_document_on_several_lines_then_another_is_refused_even_when_a_cut_drops_them() -> None:
    """The newline between two spans is dropped with the comma at a cut: still counted."""
    second = orjson.dumps({"resourceSpans": [_item(3)]})
    data = _spans_doc(newline_between=True) + b"\n" + second + b"\n"
    with pytest.raises(DocumentRefused, match="followed by another"):
        _parts(data, 300, chunk=50)
    lines = _parts(b"\n" + _spans_doc(newline_between=False) + b"\n" + second + b"\n", 300, 50)
    assert [p.first_line for p in lines if isinstance(p, framing.Lines)][:1] == [3]


def test_a_schema_url_after_the_lists_reads_the_document_again_in_runs_of_whole_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run that goes on in an item whose schema URL follows its spans (as protobuf field
    order writes it) cannot be decoded: the rows of that item's first run were written without
    it. The document is read again in runs of whole items, not whole."""
    monkeypatch.setattr(decode_module, "READ_CHUNK", 100)
    request = {"resourceSpans": [_item(n, pad=50, spans=8) for n in range(4)]}
    for item in request["resourceSpans"]:
        item["schemaUrl"] = "https://opentelemetry.io/schemas/1.26.0"
    data = orjson.dumps(request)
    runs: list[tuple[bool, bool]] = []
    original = native_parts.document_items

    def spied(part: framing.Items, options: DecodeOptions) -> Any:
        result = original(part, options)
        runs.append((bool(part.head), result.refused))
        return result

    monkeypatch.setattr(parts_module, "document_items", spied)
    streamed = decode_export(data, "d.json", DecodeOptions(batch_bytes=500))
    same(streamed, decode_export(data, "d.json", DecodeOptions(fast=False)))
    refused = runs.index((True, True))
    assert runs[refused + 1 :] and not any(head or no for head, no in runs[refused + 1 :])
    assert streamed.native_records == 1
