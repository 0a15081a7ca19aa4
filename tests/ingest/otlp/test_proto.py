"""ingest/otlp/proto.py: binary OTLP (TRACE-FORMAT §1.8 step 2, §5.3) gives the rows of the same
request as OTLP/JSON, through the fast path or the reference; a record that does not parse is
quarantined with its byte range.
"""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path
from types import SimpleNamespace

import orjson
import pyarrow as pa
import pyarrow.compute
from ingest_builders import array_attribute, length_prefixed, pb_record
from ingest_checks import same

from valuechain.ingest.bytes import framing
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.otlp.proto import parse_request
from valuechain.ingest.source.parts import PartDecoder
from valuechain.synth import SynthConfig, write_export
from valuechain.synth.writers import _proto


def test_a_bare_pb_and_a_document_hold_the_same_spans(exports: dict[str, Path]) -> None:
    ndjson = decode_export(exports["ndjson"].read_bytes(), "a")
    lines = exports["ndjson"].read_bytes().splitlines()
    # a bare .pb: one ExportTraceServiceRequest holding every ResourceSpans of the export
    data = b"".join(_first_record_as_pb(line) for line in lines)
    request = parse_request(data)  # concatenated messages merge: one request
    assert len(request.resource_spans) == len(lines)
    bare = decode_export(data, "a.pb")
    assert (bare.status, bare.framing, bare.encoding_flavor) == ("ok", "single", "otlp-proto")
    assert bare.accounting.records_read == 1
    for name in ("spans", "attributes"):
        drop = ["record_index", "json_path", "resource_row", "scope_row"] if name == "spans" else []
        left = ndjson.tables[name].drop_columns(drop)
        right = bare.tables[name].drop_columns(drop)
        if name == "attributes":  # resource and scope rows are numbered per request
            left, right = (
                t.filter(pa.compute.equal(t["owner_type"], "span")) for t in (left, right)
            )
        assert left.equals(right), name
    document = decode_export(exports["document"].read_bytes(), "doc.json")
    key = ("trace_id", "span_id", "content_hash")
    assert sorted(zip(*(document.tables["spans"][k].to_pylist() for k in key), strict=True)) == (
        sorted(zip(*(ndjson.tables["spans"][k].to_pylist() for k in key), strict=True))
    )


def _first_record_as_pb(line: bytes) -> bytes:
    return _proto(orjson.loads(line))


def test_protobuf_records_through_the_fast_path_match_the_reference(
    tmp_path: Path, otlp: SimpleNamespace
) -> None:
    from google.protobuf import json_format  # noqa: PLC0415
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
        ExportTraceServiceRequest,
    )

    span = otlp.span
    odd = [  # what protobuf can carry that the fast path must hand to the reference
        otlp.request(span(1, droppedAttributesCount=2)),
        otlp.request(span(2, endTimeUnixNano="1")),
        otlp.request(span(3, attributes=[{"key": "a", "value": {"stringValue": "x"}}] * 2)),
        otlp.request(span(4, attributes=[{"key": "s", "value": {"stringValue": "x" * 3000}}])),
        otlp.request(span(5, events=[{"name": "e", "timeUnixNano": "0"}])),
        otlp.request(span(6, attributes=[{"key": "k", "value": {"kvlistValue": {"values": []}}}])),
        otlp.request(span(7, attributes=[array_attribute("a", "é")])),
        {"resourceSpans": [{"scopeSpans": []}]},
    ]
    for request in odd:  # protobuf's JSON mapping reads bytes fields as base64
        for rs in request["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    for key in ("traceId", "spanId"):
                        s[key] = base64.b64encode(bytes.fromhex(s[key])).decode()
    payloads = [
        json_format.ParseDict(r, ExportTraceServiceRequest()).SerializeToString() for r in odd
    ]
    synth = write_export(tmp_path / "a.pb", SynthConfig(runs=1, seed=4), proto=True).path
    data = synth.read_bytes() + length_prefixed(*payloads)
    options = DecodeOptions(large_value_threshold=2000, batch_bytes=30_000)
    reference = decode_export(data, "x.pb", dataclasses.replace(options, fast=False))
    fast = decode_export(data, "x.pb", options)
    same(reference, fast)
    assert fast.issue_counts() == reference.issue_counts() != {}
    taken = PartDecoder(options).run_part(framing.Records(data, 0, True))
    assert 0 < taken.fast_records < reference.accounting.records_read  # both paths were used
    for bare in payloads:  # a bare .pb holding one request takes the same two paths
        one = decode_export(bare, "x.pb", dataclasses.replace(options, fast=False))
        same(one, decode_export(bare, "x.pb", options))
    assert PartDecoder(options).run_part(framing.Whole(payloads[6])).fast_records == 1


def test_a_protobuf_record_that_does_not_parse_is_quarantined_with_its_byte_range(
    otlp: SimpleNamespace,
) -> None:
    good, bad = pb_record(otlp, 1), b"\x0a\xff\xff\xff\x0fnot a protobuf"
    data = length_prefixed(good, bad, pb_record(otlp, 2))
    decoded = decode_export(data, "a.pb")
    assert decoded.status == "partial"
    assert decoded.span_count == 2
    start, end = 4 + len(good), 4 + len(good) + 4 + len(bad)
    (issue,) = [i for i in decoded.issues if i.code.value == "E_INVALID_PROTO_RECORD"]
    assert f"bytes {start}–{end}" in issue.message
    assert issue.byte_offset == start
    quarantine = decoded.tables["quarantine"].to_pylist()
    assert base64.b64decode(orjson.loads(quarantine[0]["raw_json"])) == data[start:end]
    assert decoded.accounting.check(decoded.span_count, decoded.tables["attributes"].num_rows) == []
