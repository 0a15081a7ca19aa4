"""The OTLP/JSON pieces the SDK translation writes: typed attributes, spans, their ids.

SDK payloads carry no wall-clock time (trace span times are ms offsets from the prompt's
start): every span is placed at `BASE_NS` plus its offsets.
"""

from __future__ import annotations

import hashlib
from typing import Any

from valuechain.ingest.mcpjam import identity as ident

PRODUCER = "mcpjam-sdk"
BASE_NS = 1_000_000_000_000_000_000  # 2001-09-09T01:46:40Z
_MS = 1_000_000

Attrs = list[dict[str, Any]]


def string_attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def int_attr(key: str, value: int) -> dict[str, Any]:
    return {"key": key, "value": {"intValue": str(value)}}


def bool_attr(key: str, value: bool) -> dict[str, Any]:
    return {"key": key, "value": {"boolValue": value}}


def double_attr(key: str, value: float) -> dict[str, Any]:
    return {"key": key, "value": {"doubleValue": float(value)}}


def json_attr(key: str, value: Any) -> dict[str, Any]:
    return string_attr(key, ident.canonical(value).decode())


class SpanIds:
    """Deterministic trace and span ids of one trial (its key decides them)."""

    def __init__(self, key: str) -> None:
        self.trace = hashlib.sha256(key.encode()).hexdigest()[:32]
        self.key = key

    def span(self, local: str) -> str:
        return hashlib.sha256(f"{self.key}\x00{local}".encode()).hexdigest()[:16]


def otlp_span(
    trace: str,
    span_id: str,
    parent: str | None,
    name: str,
    start_ms: float,
    end_ms: float,
    attrs: Attrs,
    *,
    error: bool = False,
    kind: int = 1,
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": trace,
        "spanId": span_id,
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(BASE_NS + int(start_ms * _MS)),
        "endTimeUnixNano": str(BASE_NS + int(end_ms * _MS)),
        "attributes": attrs,
    }
    if parent is not None:
        span["parentSpanId"] = parent
    if error:
        span["status"] = {"code": 2}
    return span
