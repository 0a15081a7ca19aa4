"""The OTLP/JSON pieces the SDK translation writes: typed attributes, spans, their ids.

A trial's spans are placed at its run's start (`clock.run_start_ns`) plus the ms offsets the
SDK trace gives them.
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
_encode = msgspec.json.Encoder().encode

Attr = bytes  # one OTLP/JSON KeyValue, encoded
Attrs = list[Attr]


@functools.cache
def _key(key: str) -> bytes:
    return b'{"key":' + _encode(key) + b',"value":{'


def string_attr(key: str, value: str) -> Attr:
    return _key(key) + b'"stringValue":' + _encode(value) + b"}}"


def int_attr(key: str, value: int) -> Attr:
    return _key(key) + b'"intValue":' + _encode(str(value)) + b"}}"


def bool_attr(key: str, value: bool) -> Attr:
    return _key(key) + b'"boolValue":' + _encode(value) + b"}}"


def double_attr(key: str, value: float) -> Attr:
    return _key(key) + b'"doubleValue":' + _encode(float(value)) + b"}}"


def json_attr(key: str, value: Any) -> Attr:
    return string_attr(key, ident.canonical(value).decode())


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
) -> bytes:
    """One OTLP/JSON span, encoded: traceId, spanId, name, kind, start and end, attributes,
    then parentSpanId and status when there are."""
    start = ids.start_ns + int(start_ms * _MS)
    end = ids.start_ns + int(end_ms * _MS)
    parts = [
        b'{"traceId":',
        _encode(ids.trace),
        b',"spanId":',
        _encode(span_id),
        b',"name":',
        _encode(name),
        b',"kind":',
        _encode(kind),
        b',"startTimeUnixNano":"',
        str(start).encode(),
        b'","endTimeUnixNano":"',
        str(end).encode(),
        b'","attributes":[',
        b",".join(attrs),
        b"]",
    ]
    if parent is not None:
        parts += (b',"parentSpanId":', _encode(parent))
    if error:
        parts.append(b',"status":{"code":2}')
    parts.append(b"}")
    return b"".join(parts)


def otlp_request(resource: Attrs, spans: list[bytes]) -> bytes:
    """One ExportTraceServiceRequest, encoded: one resource, the producer's scope, ``spans``."""
    return b"".join(
        (
            b'{"resourceSpans":[{"resource":{"attributes":[',
            b",".join(resource),
            b']},"scopeSpans":[{"scope":{"name":',
            _encode(PRODUCER),
            b'},"spans":[',
            b",".join(spans),
            b"]}]}]}",
        )
    )
