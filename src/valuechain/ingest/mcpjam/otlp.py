"""The OTLP pieces the SDK translation writes: typed attributes, spans, their ids.

Attributes and spans are plain tuples, so that a trial's translation costs no JSON: they are
written as OTLP/JSON text (`otlp_request`, `ndjson_size`) or straight into the table Arrow's
JSON reader would make of that text (`columns.py`). A trial's spans are placed at its run's
start (`clock.run_start_ns`) plus the ms offsets the SDK trace gives them.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import msgspec

from valuechain.ingest.mcpjam import identity as ident

PRODUCER = "mcpjam-sdk"
_MS = 1_000_000
# msgspec's JSON for every value written: the bytes are those of encoding the OTLP request
# as dicts, without building them (one attribute is two dicts; a trial has ~60)
encode = _encode = msgspec.json.Encoder().encode

# One OTLP KeyValue: (key, stringValue, intValue, boolValue, doubleValue), one value set (a
# string attribute with a None value is written as a null string value)
Attr = tuple[str, str | None, str | None, bool | None, float | None]
Attrs = list[Attr]
# One span: (traceId, spanId, parentSpanId, name, kind, start ns, end ns, attributes, error)
Span = tuple[str, str, str | None, str, int, str, str, Attrs, bool]


def string_attr(key: str, value: str) -> Attr:
    return (key, value, None, None, None)


def int_attr(key: str, value: int) -> Attr:
    return (key, None, str(value), None, None)


def bool_attr(key: str, value: bool) -> Attr:
    return (key, None, None, value, None)


def double_attr(key: str, value: float) -> Attr:
    return (key, None, None, None, float(value))


def json_attr(key: str, value: Any) -> Attr:
    return (key, ident.canonical(value).decode(), None, None, None)


class TrialTrace:
    """One trial's trace: its deterministic trace and span ids (its key decides them) and the
    instant its spans' ms offsets count from (its run's start)."""

    def __init__(self, key: str, start_ns: int) -> None:
        self.trace = hashlib.sha256(key.encode()).hexdigest()[:32]
        self.key = key
        self.start_ns = start_ns

    def span(self, local: str) -> str:
        return hashlib.sha256(f"{self.key}\x00{local}".encode()).hexdigest()[:16]


def otlp_span(
    ids: TrialTrace,
    span_id: str,
    parent: str | None,
    name: str,
    start_ms: float,
    end_ms: float,
    attrs: Attrs,
    *,
    error: bool = False,
    kind: int = 1,
) -> Span:
    """One OTLP span: its times are its trace's start plus the ms offsets."""
    start = ids.start_ns + int(start_ms * _MS)
    end = ids.start_ns + int(end_ms * _MS)
    return (ids.trace, span_id, parent, name, kind, str(start), str(end), attrs, error)


# ---------------------------------------------------------------------------- OTLP/JSON text
@functools.cache
def _key(key: str) -> bytes:
    return b'{"key":' + _encode(key) + b',"value":{'


def attr_text(attr: Attr) -> bytes:
    key, s, i, b, d = attr
    if s is None and i is not None:
        return _key(key) + b'"intValue":' + _encode(i) + b"}}"
    if s is None and b is not None:
        return _key(key) + b'"boolValue":' + _encode(b) + b"}}"
    if s is None and d is not None:
        return _key(key) + b'"doubleValue":' + _encode(d) + b"}}"
    return _key(key) + b'"stringValue":' + _encode(s) + b"}}"


def span_text(span: Span) -> bytes:
    """traceId, spanId, name, kind, start and end, attributes, then parentSpanId and status
    when there are."""
    trace, span_id, parent, name, kind, start, end, attrs, error = span
    parts = [
        b'{"traceId":',
        _encode(trace),
        b',"spanId":',
        _encode(span_id),
        b',"name":',
        _encode(name),
        b',"kind":',
        _encode(kind),
        b',"startTimeUnixNano":"',
        start.encode(),
        b'","endTimeUnixNano":"',
        end.encode(),
        b'","attributes":[',
        b",".join(map(attr_text, attrs)),
        b"]",
    ]
    if parent is not None:
        parts += (b',"parentSpanId":', _encode(parent))
    if error:
        parts.append(b',"status":{"code":2}')
    parts.append(b"}")
    return b"".join(parts)


_REQUEST = (
    b'{"resourceSpans":[{"resource":{"attributes":[',
    b']},"scopeSpans":[{"scope":{"name":' + _encode(PRODUCER) + b'},"spans":[',
    b"]}]}]}",
)


def otlp_request(resource: Attrs, spans: list[Span]) -> bytes:
    """One ExportTraceServiceRequest, encoded: one resource, the producer's scope, ``spans``."""
    return b"".join(
        (
            _REQUEST[0],
            b",".join(map(attr_text, resource)),
            _REQUEST[1],
            b",".join(map(span_text, spans)),
            _REQUEST[2],
        )
    )
