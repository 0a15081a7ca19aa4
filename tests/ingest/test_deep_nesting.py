"""Deep AnyValue nesting (TRACE-FORMAT §5.2, §7 decision 5): never a traceback.

Up to 64 levels an ``arrayValue``/``kvlistValue`` is data; beyond, the attribute is quarantined
(``E_TOO_DEEP``); nested beyond what a reader can follow at all, the record is quarantined
(``E_RECORD_TOO_DEEP``). Either way the other records and the next source are read — by both
decoders (the msgspec fast path and the reference), in JSON and in protobuf.
"""

from __future__ import annotations

import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from ingest_builders import Write, length_prefixed

from valuechain.cli import main
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export

PLACEHOLDER = '"__deep__"'
# depth → what happens: kept, the attribute quarantined, the whole record quarantined
CASES = {64: "kept", 65: "attribute", 500: "record"}


def deep_json(container: str, depth: int) -> bytes:
    """An AnyValue nested ``depth`` containers deep, as text (JSON encoders recurse)."""
    value = b'{"stringValue":"leaf"}'
    for _ in range(depth):
        if container == "array":
            value = b'{"arrayValue":{"values":[' + value + b"]}}"
        else:
            value = b'{"kvlistValue":{"values":[{"key":"k","value":' + value + b"}]}}"
    return value


def json_record(otlp: SimpleNamespace, n: int, value: bytes | None) -> bytes:
    """A one-span request; span ``n`` carries ``deep`` = ``value`` when given."""
    attributes = [{"key": "deep", "value": "__deep__"}] if value is not None else []
    text = orjson.dumps(otlp.request(otlp.span(n, attributes=attributes)))
    return text.replace(PLACEHOLDER.encode(), value) if value is not None else text


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def deep_proto_value(container: str, depth: int) -> bytes:
    """The same AnyValue as a serialized message, encoded by hand without recursion."""
    value = _field(1, b"leaf")  # AnyValue.string_value
    for _ in range(depth):
        if container == "array":  # AnyValue.array_value → ArrayValue.values
            value = _field(5, _field(1, value))
        else:  # AnyValue.kvlist_value → KeyValueList.values → KeyValue{key, value}
            value = _field(6, _field(1, _field(1, b"k") + _field(2, value)))
    return value


def proto_record(otlp: SimpleNamespace, n: int, value: bytes | None) -> bytes:
    span = otlp.span(n)
    body = _field(1, bytes.fromhex(span["traceId"])) + _field(2, bytes.fromhex(span["spanId"]))
    body += _field(5, span["name"].encode())
    body += b"\x39" + struct.pack("<Q", int(span["startTimeUnixNano"]))  # field 7, fixed64
    body += b"\x41" + struct.pack("<Q", int(span["endTimeUnixNano"]))  # field 8, fixed64
    if value is not None:
        body += _field(9, _field(1, b"deep") + _field(2, value))  # Span.attributes
    return _field(1, _field(2, _field(2, body)))  # request → resource spans → scope spans


def _decode(data: bytes, name: str, fast: bool) -> DecodedSource:
    out = decode_export(data, name, DecodeOptions(fast=fast))
    assert out.accounting.check(out.span_count, out.tables["attributes"].num_rows) == []
    return out


def _codes(out: DecodedSource) -> set[str]:
    return {i.code.value for i in out.issues}


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])
@pytest.mark.parametrize("container", ["array", "kvlist"])
@pytest.mark.parametrize(("depth", "expected"), CASES.items(), ids=[str(d) for d in CASES])
@pytest.mark.parametrize("encoding", ["ndjson", "proto"])
def test_deep_value_then_a_plain_record(
    otlp: SimpleNamespace, fast: bool, container: str, depth: int, expected: str, encoding: str
) -> None:
    if encoding == "ndjson":
        deep = json_record(otlp, 1, deep_json(container, depth))
        data, name = deep + b"\n" + json_record(otlp, 2, None) + b"\n", "deep.jsonl"
    else:
        deep = proto_record(otlp, 1, deep_proto_value(container, depth))
        data, name = length_prefixed(deep, proto_record(otlp, 2, None)), "deep.pb"
    out = _decode(data, name, fast)
    acct = out.accounting
    assert out.rejection is None
    assert acct.records_read == 2
    if expected == "kept":
        assert _codes(out) == set()
        assert (out.span_count, acct.attributes_quarantined) == (2, 0)
        attributes = out.tables["attributes"].to_pylist()
        (value,) = [row["json_value"] for row in attributes if row["key"] == "deep"]
        assert value.count("[" if container == "array" else "{") == depth and "leaf" in value
    elif expected == "attribute":
        assert _codes(out) == {"E_TOO_DEEP"}
        assert (out.span_count, acct.attributes_quarantined, out.status) == (2, 1, "ok")
        (row,) = out.tables["quarantine"].to_pylist()
        assert row["json_path"].endswith("spans[0].attributes[0]") and "leaf" in row["raw_json"]
    else:
        assert _codes(out) == {"E_RECORD_TOO_DEEP"}
        assert (out.span_count, acct.records_quarantined, out.status) == (1, 1, "partial")
        (issue,) = out.issues
        assert issue.byte_offset == 0 and "nests" in issue.message


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])
@pytest.mark.parametrize("encoding", ["json", "proto"])
def test_a_lone_record_nested_too_deep_rejects_its_source(
    otlp: SimpleNamespace, fast: bool, encoding: str
) -> None:
    if encoding == "json":
        data, name = json_record(otlp, 1, deep_json("array", 5000)), "deep.json"
    else:
        data, name = proto_record(otlp, 1, deep_proto_value("kvlist", 5000)), "deep.pb"
    out = decode_export(data, name, DecodeOptions(fast=fast))
    assert out.status == "rejected"
    assert out.rejection is not None and out.rejection.code == "E_RECORD_TOO_DEEP"


def _run(*args: str | Path) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_a_deep_source_does_not_stop_the_next(
    tmp_path: Path, otlp: SimpleNamespace, write: Write
) -> None:
    store = tmp_path / "deep.duckdb"
    deep = write("a-deep.json", json_record(otlp, 1, deep_json("array", 500)))
    partial = write(
        "b-partial.jsonl",
        json_record(otlp, 2, deep_json("kvlist", 500)) + b"\n" + json_record(otlp, 3, None),
    )
    good = write("c-good.json", json_record(otlp, 4, None))
    result = _run("--store", store, "import", "--no-derive", deep, partial, good)
    assert "Traceback" not in result.output
    assert result.exit_code == 1  # the lone too-deep record rejects its source
    assert "E_RECORD_TOO_DEEP" in result.output
    spans = _run("--store", store, "sql", "SELECT count(*) AS n FROM spans", "--format", "csv")
    assert spans.stdout.split() == ["n", "2"]  # span 3 of the partial source and span 4
