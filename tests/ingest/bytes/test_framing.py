"""ingest/bytes (framing.py, json_values.py): every framing of TRACE-FORMAT §1.8/§5.3 gives
the tables of NDJSON, in one part or many; broken and cut records are told apart; bare
NaN/Infinity tokens and documents nested beyond any parser are read by the lenient path or
rejected, never a crash.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from ingest_builders import FRAMINGS, length_prefixed, ndjson_lines, pb_record
from ingest_checks import codes, decode, issue, rows, same
from test_deep_nesting import deep_proto_value

from valuechain.ingest import decode as decode_module
from valuechain.ingest.bytes import framing
from valuechain.ingest.decode import DecodeOptions, decode_export

EXPECTED = {
    "ndjson-gzip": ("gzip", "stream", "otlp-json"),
    "ndjson-zstd-native": ("zstd-native", "stream", "otlp-json"),
    "json-zstd-legacy": ("zstd-legacy", "length-prefixed", "otlp-json"),
    "proto-length-prefixed": ("none", "length-prefixed", "otlp-proto"),
    "proto-zstd-legacy": ("zstd-legacy", "length-prefixed", "otlp-proto"),
    "proto-zstd-native": ("zstd-native", "length-prefixed", "otlp-proto"),
}


@pytest.mark.parametrize("batch_bytes", [1 << 30, 30_000])
@pytest.mark.parametrize("framing", list(FRAMINGS))
def test_every_framing_gives_the_tables_of_ndjson(
    exports: dict[str, Path], framing: str, batch_bytes: int
) -> None:
    reference = decode_export(exports["ndjson"].read_bytes(), "a", DecodeOptions(fast=False))
    options = DecodeOptions(batch_bytes=batch_bytes)
    decoded = decode_export(exports[framing].read_bytes(), "a", options)
    assert decoded.status == "ok"
    same(reference, decoded)
    assert (decoded.compression, decoded.framing, decoded.encoding_flavor) == EXPECTED[framing]


def test_corrupt_first_line_of_a_stream(otlp: SimpleNamespace) -> None:
    lines = ndjson_lines(otlp, 3)
    out = decode_export(b"\n".join([b"{not json", lines[1], lines[2]]) + b"\n", "s.jsonl")
    assert (out.status, out.span_count) == ("partial", 2)
    assert out.issue_counts() == {"E_INVALID_RECORD": 1}


def test_a_cut_length_prefixed_file_keeps_its_whole_records(otlp: SimpleNamespace) -> None:
    data = length_prefixed(pb_record(otlp, 1), pb_record(otlp, 2))
    decoded = decode_export(data[:-5], "live.pb")
    assert (decoded.status, decoded.span_count) == ("partial", 1)
    assert decoded.issue_counts()["E_TRUNCATED_RECORD"] == 1


def test_nan_strings_need_no_issue_but_bare_tokens_do(otlp: SimpleNamespace) -> None:
    strings = otlp.dumps(
        otlp.request(otlp.span(attributes=[{"key": "k", "value": {"doubleValue": "NaN"}}]))
    )
    bare = strings.replace(b'"NaN"', b"NaN")
    assert b"NaN}" in bare
    assert codes(decode(strings)) == {}
    for data in (bare, bare.replace(b"NaN", b"-Infinity")):
        got = decode(data)
        assert codes(got) == {"W_NONSTANDARD_JSON": 1}
        assert "NaN/Infinity" in issue(got, "W_NONSTANDARD_JSON").message
        (value,) = rows(got, "attributes", "double_value")
        assert math.isnan(value["double_value"]) or value["double_value"] == -math.inf


def test_bare_nan_in_a_pretty_printed_document(otlp: SimpleNamespace) -> None:
    pretty = json.dumps(
        otlp.request(otlp.span(attributes=[{"key": "k", "value": {"doubleValue": math.inf}}])),
        indent=2,
    ).encode()
    assert b"Infinity" in pretty
    got = decode(pretty)
    assert codes(got) == {"W_NONSTANDARD_JSON": 1}
    assert rows(got, "attributes", "double_value") == [{"double_value": math.inf}]


def test_document_nested_beyond_any_parser_is_rejected_not_a_crash() -> None:
    data = b'{"resourceSpans":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    out = decode_export(data, "deep.json")
    assert out.status == "rejected"
    assert out.rejection is not None and out.rejection.code == "E_RECORD_TOO_DEEP"
    assert "nests deeper" in str(out.rejection)


def _request(value: bytes) -> bytes:
    """A request's resource spans whose resource has one attribute of AnyValue ``value``."""

    def field(number: int, payload: bytes) -> bytes:  # length-delimited, under 2 MiB
        size = len(payload)
        length = bytes([size & 0x7F | 0x80, size >> 7 & 0x7F | 0x80, size >> 14])
        return bytes([number << 3 | 2]) + length + payload

    return field(1, field(1, field(1, field(1, b"k") + field(2, value))))


def _issues(data: bytes, batch_bytes: int) -> list[tuple[str, int | None, int | None, str]]:
    out = decode_export(data, "nuls.json", DecodeOptions(batch_bytes=batch_bytes))
    return [(str(i.code), i.line, i.byte_offset, i.message) for i in out.issues]


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":' + b"\x00" * 9000,
        b'{"a": tru' + b"\x00" * 9000,  # broken, not cut: the NULs are not the input's end
        b"[" * 100_000 + b"\x00" * 9000,
        json.dumps({"a": [1, 2]}, indent=2).encode() * 2 + b"\x00" * 9000,
        b'{"a":' + b"\x00" * 9000 + b"x",  # content after the run: held byte for byte
        b'{"a":' + b"\x00" * 9000 + b'\n{"b": 1}\n',
        # a protobuf request's start: field 1, then a field 0 (none parses), then the NULs
        b"\n" + b"\x00" * 9001,
        b"\n\x05abcde\x07" + b"\x00" * 9000,  # wire type 7
        _request(deep_proto_value("kv", 100)) + b"\x00" * 9000,  # E_RECORD_TOO_DEEP
        # a field opened after the field 0 that ends among the NULs: nested as deep
        b"\n\x00\x00\x00" + _request(deep_proto_value("kv", 100))[:-20] + b"\x00" * 9000,
        b"\n" + b"\x00" * 9000 + b"\n\x05abcde",
    ],
    ids=[
        *("open", "literal", "deep", "concatenated", "content-after", "document-after"),
        *("proto-field-0", "proto-wire-7", "proto-deep", "proto-deep-cut", "proto-content-after"),
    ],
)
def test_a_run_of_nuls_after_json_or_a_broken_request_is_counted_not_held(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a batch of NUL bytes at the end of JSON text, or of a protobuf request once a
    top-level field shows it is none, the rest is counted, not held (issue 38.2): read in
    10-byte pieces and 64-byte batches, the issues (code, line, byte range) are those of the
    body read whole."""
    whole = _issues(data, 1 << 30)
    monkeypatch.setattr(decode_module, "READ_CHUNK", 10)
    held: list[int] = []
    parts = framing.Framer.__iter__

    def spy(self: framing.Framer) -> Iterator[framing.Part]:
        for part in parts(self):
            if isinstance(part, framing.Whole):
                held.append(len(part.data))
            yield part

    monkeypatch.setattr(framing.Framer, "__iter__", spy)
    assert _issues(data, 64) == whole
    if data.endswith(b"\x00"):
        assert held and held[0] < len(data) - 4000, held  # the run's rest was not held


_LINE = b'{"resourceSpans": []}'


@pytest.mark.parametrize(
    "data",
    [
        _LINE + b"\n" + b" " * 9000 + b"\n" + _LINE + b"\n",  # lines after a blank first batch
        _LINE + b"\n" + b" " * 9000 + b"  \n" + _LINE,  # the run's line ends in the next piece
        _LINE + b"\n" + b" " * 9000 + b"\x0b\n" + _LINE,  # \v: blank to a line, not to JSON
        _LINE + b"\n" + b" " * 9000 + b"\x0b",  # a document: the one-shot path
        _LINE + b"\n" + b" " * 9000 + b"x\n" + _LINE,  # the broken line starts in the batch
        (_LINE + b"\n") * 2 + b" " * 9000 + b"x\n" + _LINE,
        _LINE + b"\n" + b" " * 9000 + _LINE + b"\n",
    ],
)
def test_lines_after_a_long_blank_run_read_as_read_whole(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first line, then a blank run longer than a batch, then more: streamed as NDJSON with
    the run skipped (issue 38.2: it was read whole), the issues and their places those of the
    body read whole — also where the line after the run starts before it."""
    whole = _issues(data, 1 << 30)
    monkeypatch.setattr(decode_module, "READ_CHUNK", 100)
    assert _issues(data, 1000) == whole
    assert _issues(data, 64) == whole
