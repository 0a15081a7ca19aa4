"""Binary OTLP protobuf (TRACE-FORMAT §1.8 step 2, §5.2, §5.3): one request's bytes → the same
rows, issues and accounting as the same request written as OTLP/JSON.

A record is parsed with opentelemetry-proto (``ExportTraceServiceRequest``; ``TracesData`` has
the same wire format). Its typed fields are then mapped onto the canonical OTLP/JSON shape —
ids as lower-case hex, 64-bit times as decimal strings, enums as integers, bytes as base64 —
and decoded as that JSON is (the fast path when it takes the record, else the reference
``SpanDecoder``), so every rule (id checks, times, duplicates, large values, nesting depth,
content hashes, JSON paths) is the JSON one by construction.

proto3 has no presence for scalar fields: a default (``""``, ``0``) is indistinguishable from
an absent field, so defaults are read as *absent*, which is what a canonical OTLP/JSON printer
writes for them (it omits defaults). A JSON export that spells a default out (``"name": ""``,
``"flags": 0``) keeps it; the protobuf encoding of the same span cannot.
"""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

try:  # the upb backend (the default) refuses messages nested beyond 100 levels
    from google._upb import _message as _upb  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - another protobuf backend
    _upb = None

__all__ = ["DecodeError", "TooDeepError", "bare_request", "parse_request", "request_to_json"]

_UPB_DEPTH = 100  # upb's default message nesting limit
# Message levels a request may nest and still be parsed: the envelope (request, resource
# spans, scope spans, span, event, key-value: 6) and three per kvlist level, so an AnyValue
# just beyond TRACE-FORMAT's cap of 64 levels parses and only its attribute is quarantined.
MAX_WIRE_DEPTH = 256


class TooDeepError(Exception):
    """A request nested beyond ``MAX_WIRE_DEPTH`` messages: the record is quarantined."""


def parse_request(data: bytes, nuls: int = 0) -> Any:
    """Parse one serialized request; raises ``DecodeError`` when the bytes are not one, and
    ``TooDeepError`` when they are one nested too deeply to parse (``nuls``: NUL bytes that
    followed ``data``, counted, not held, after a field no request has: ``binary_frames.TopLevel``).

    Nesting between upb's limit and ``MAX_WIRE_DEPTH`` is parsed again with the limit lifted
    (measured first without recursion, so the C parser never follows unbounded nesting);
    deeper raises ``TooDeepError``.
    """
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(data)
    except DecodeError:
        depth = wire_depth(data, MAX_WIRE_DEPTH, nuls)
        if depth <= _UPB_DEPTH or _upb is None:
            raise
        if depth > MAX_WIRE_DEPTH:
            raise TooDeepError(
                f"the record nests messages deeper than {MAX_WIRE_DEPTH} levels"
            ) from None
        _upb.SetAllowOversizeProtos(True)
        try:
            request.ParseFromString(data)
        finally:
            _upb.SetAllowOversizeProtos(False)
    return request


def wire_depth(data: bytes, limit: int, nuls: int = 0) -> int:
    """How deep the messages of a serialized request nest (counting stops beyond ``limit``);
    0 when the bytes are not the wire format of one. Iterative: it never recurses. ``data``
    is followed by ``nuls`` NUL bytes, not held: each two of them a field 0 of value 0."""
    total = len(data) + nuls
    stack = [(ExportTraceServiceRequest.DESCRIPTOR, total)]
    pos, deepest = 0, 1
    while stack:
        descriptor, end = stack[-1]
        if pos >= end:
            stack.pop()
            continue
        if pos >= len(data):  # among the NUL bytes: to the message's end, or one beyond it
            if (end - pos) % 2:
                return 0
            pos = end
            continue
        tag, pos = _varint(data, pos, total)
        wire = tag & 7
        if wire == 0:
            pos = _varint(data, pos, total)[1]
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        elif wire == 2:
            size, pos = _varint(data, pos, total)
            if pos + size > end:
                return 0
            field = descriptor.fields_by_number.get(tag >> 3)
            if field is not None and field.message_type is not None:
                stack.append((field.message_type, pos + size))
                deepest = max(deepest, len(stack))
                if deepest > limit:
                    return deepest
                continue
            pos += size
        else:  # groups (deprecated) or garbage
            return 0
        if pos > end:
            return 0
    return deepest


def _varint(data: bytes, pos: int, total: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data):
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
    if pos < total:  # a NUL byte after ``data`` ends it
        return value, pos + 1
    return -1, total + 1  # cut short: the caller sees pos beyond the end


def bare_request(data: bytes, nuls: int = 0) -> Any:
    """``data`` as one ExportTraceServiceRequest, if it parses as one that holds a real span
    (text that happens to start with a newline does not); ``TooDeepError`` when it is one
    nested too deeply to parse."""
    try:
        request = parse_request(data, nuls)
    except DecodeError:  # TooDeepError is not one: it propagates
        return None
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            if any(len(span.trace_id) == 16 for span in ss.spans):
                return request
    return None


def request_to_json(request: Any) -> dict[str, Any]:
    """The canonical OTLP/JSON shape of a parsed ``ExportTraceServiceRequest``."""
    return {"resourceSpans": [_resource_spans(rs) for rs in request.resource_spans]}


def _resource_spans(rs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if rs.HasField("resource"):
        out["resource"] = _owner(rs.resource)
    out["scopeSpans"] = [_scope_spans(ss) for ss in rs.scope_spans]
    if rs.schema_url:
        out["schemaUrl"] = rs.schema_url
    return out


def _owner(message: Any) -> dict[str, Any]:
    """Resource (and the attribute part of a scope, event or link)."""
    out: dict[str, Any] = {}
    if message.attributes:
        out["attributes"] = [_key_value(kv) for kv in message.attributes]
    if message.dropped_attributes_count:
        out["droppedAttributesCount"] = message.dropped_attributes_count
    return out


def _scope_spans(ss: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ss.HasField("scope"):
        scope = ss.scope
        body: dict[str, Any] = {}
        if scope.name:
            body["name"] = scope.name
        if scope.version:
            body["version"] = scope.version
        body.update(_owner(scope))
        out["scope"] = body
    out["spans"] = [_span(span) for span in ss.spans]
    if ss.schema_url:
        out["schemaUrl"] = ss.schema_url
    return out


def _span(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": span.trace_id.hex(), "spanId": span.span_id.hex()}
    if span.parent_span_id:
        out["parentSpanId"] = span.parent_span_id.hex()
    if span.trace_state:
        out["traceState"] = span.trace_state
    if span.flags:
        out["flags"] = span.flags
    if span.name:
        out["name"] = span.name
    if span.kind:
        out["kind"] = span.kind
    if span.start_time_unix_nano:
        out["startTimeUnixNano"] = str(span.start_time_unix_nano)
    if span.end_time_unix_nano:
        out["endTimeUnixNano"] = str(span.end_time_unix_nano)
    out.update(_owner(span))
    if span.events:
        out["events"] = [_event(event) for event in span.events]
    if span.dropped_events_count:
        out["droppedEventsCount"] = span.dropped_events_count
    if span.links:
        out["links"] = [_link(link) for link in span.links]
    if span.dropped_links_count:
        out["droppedLinksCount"] = span.dropped_links_count
    if span.HasField("status"):
        status: dict[str, Any] = {}
        if span.status.message:
            status["message"] = span.status.message
        if span.status.code:
            status["code"] = span.status.code
        out["status"] = status
    return out


def _event(event: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if event.time_unix_nano:
        out["timeUnixNano"] = str(event.time_unix_nano)
    if event.name:
        out["name"] = event.name
    out.update(_owner(event))
    return out


def _link(link: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": link.trace_id.hex(), "spanId": link.span_id.hex()}
    if link.trace_state:
        out["traceState"] = link.trace_state
    out.update(_owner(link))
    if link.flags:
        out["flags"] = link.flags
    return out


def _key_value(kv: Any) -> dict[str, Any]:
    if kv.HasField("value"):
        return {"key": kv.key, "value": _any_value(kv.value)}
    return {"key": kv.key}


def _any_value(value: Any) -> dict[str, Any]:
    which = value.WhichOneof("value")
    if which is None:
        return {}
    if which == "string_value":
        return {"stringValue": value.string_value}
    if which == "int_value":
        return {"intValue": str(value.int_value)}
    if which == "bool_value":
        return {"boolValue": value.bool_value}
    if which == "double_value":
        return {"doubleValue": value.double_value}
    if which == "bytes_value":
        return {"bytesValue": base64.b64encode(value.bytes_value).decode()}
    if which == "array_value":
        return {"arrayValue": {"values": [_any_value(v) for v in value.array_value.values]}}
    if which == "kvlist_value":
        return {"kvlistValue": {"values": [_key_value(kv) for kv in value.kvlist_value.values]}}
    return {}  # a variant newer than this reader (string_value_strindex): empty, as in JSON
