"""ingest/otlp/fast.py: the fast path is byte-identical to the reference decoder, takes every
canonical record and hands every other one to the reference.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from ingest_builders import SMALL, array_attribute
from ingest_checks import same

from valuechain.ingest.bytes import framing
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.source.parts import PartDecoder
from valuechain.synth import SynthConfig, write_export

ODD_RECORDS: list[Any] = [
    {"resource_spans": []},  # snake_case, empty
    {"resourceMetrics": []},
    [1, 2],
    "NOT JSON AT ALL",
]


def _odd_lines(otlp: SimpleNamespace) -> list[bytes]:
    span = otlp.span
    b64 = base64.b64encode(bytes.fromhex(otlp.TRACE_ID)).decode()
    requests = [
        otlp.request(span(1, kind="SPAN_KIND_SERVER")),
        otlp.request(span(2, traceId=b64)),
        otlp.request(span(3, attributes=[{"key": "a", "value": {"intValue": 5}}])),
        otlp.request(span(4, attributes=[{"key": "a", "value": {"stringValue": "x"}}] * 2)),
        otlp.request(span(5, endTimeUnixNano="1")),
        otlp.request(span(6, droppedAttributesCount=2)),
        otlp.request(span(7, startTimeUnixNano=...)),
        otlp.request(span(8, attributes=[{"key": "d", "value": {"doubleValue": "NaN"}}])),
        otlp.request(span(9, attributes=[{"key": "b", "value": {"bytesValue": "AAEC"}}])),
        otlp.request(span(10, attributes=[{"key": "s", "value": {"stringValue": "x" * 50}}])),
        otlp.request(span(11, events=[{"name": "e", "timeUnixNano": "0"}], links=[])),
        otlp.request(span(12, unknown=1)),
        otlp.request(span(13, attributes=[{"key": "k", "value": {"arrayValue": {}}}])),
        otlp.request(span(16, attributes=[array_attribute("a", 'é\n\u2028"', "")])),  # strings
        otlp.request(span(17, attributes=[array_attribute({"stringValue": "a", "intValue": "1"})])),
        otlp.request(
            span(18, attributes=[array_attribute({"stringValue": None}, {"boolValue": True})])
        ),
        otlp.request(span(19, attributes=[array_attribute({"arrayValue": {"values": []}}, "x")])),
        otlp.request(
            span(20, attributes=[{"key": "k", "value": {"arrayValue": {"values": [], "x": 1}}}])
        ),
        otlp.request(span(1)),  # an exact duplicate of a canonical span
        otlp.request(span(1, name="changed")),  # a conflicting one
    ]
    lines = [orjson.dumps(r) for r in requests]
    lines += [orjson.dumps(r) for r in ODD_RECORDS]
    lines.append(b'{"resourceSpans": [], "x": NaN}')
    lines.append(json.dumps(otlp.request(span(14, name="\ud800"))).encode())
    lines.append(b"  " + orjson.dumps(otlp.request(span(15))))
    # hostile numbers and keys (issue 38.5)
    twice = orjson.dumps(otlp.request(span(21, name="a")))
    lines.append(twice.replace(b'"name":"a"', b'"name":"a","name":"b"'))
    number = orjson.dumps(otlp.request(span(22, attributes=[array_attribute({"intValue": 7})])))
    lines.append(number.replace(b'"intValue":7', b'"intValue":7' + b"0" * 10_000))
    lines.append(number.replace(b'"intValue":7', b'"doubleValue":1e999999'))
    return lines


@pytest.mark.parametrize("seed", [1, 2])
def test_fast_path_is_byte_identical_to_the_reference(
    tmp_path: Path, otlp: SimpleNamespace, seed: int
) -> None:
    path = write_export(tmp_path / "a.jsonl", SynthConfig(runs=2, seed=seed), ndjson=True).path
    lines = path.read_bytes().splitlines()
    odd = _odd_lines(otlp)
    mixed = [x for pair in zip(lines, odd + [b""] * len(lines), strict=False) for x in pair]
    data = b"\n".join(mixed) + b"\n" + b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"tr'
    for batch_bytes in (1 << 30, 40_000):
        options = DecodeOptions(batch_bytes=batch_bytes, large_value_threshold=40)
        reference = decode_export(data, "x", DecodeOptions(fast=False, large_value_threshold=40))
        fast = decode_export(data, "x", options)
        same(reference, fast)
        assert (fast.status, fast.framing) == (reference.status, reference.framing)
        assert fast.accounting.records_quarantined > 0


def test_fast_path_takes_the_canonical_records(tmp_path: Path) -> None:
    path = write_export(tmp_path / "a.jsonl", SMALL, ndjson=True).path
    data = path.read_bytes()
    result = PartDecoder(DecodeOptions()).run_part(framing.Lines(data, 0, 1, True))
    assert result.fast_records == data.count(b"\n") > 0
