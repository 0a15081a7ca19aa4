"""Hypothesis strategies for OTLP/JSON requests, and the encodings a producer may write them in.

Imported by name (``from ingest_strategies import …``); see ``ingest_builders``.
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

STORE = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)

SCALARS = st.one_of(
    st.builds(lambda s: {"stringValue": s}, st.text(max_size=8)),
    st.builds(lambda b: {"boolValue": b}, st.booleans()),
    st.builds(lambda i: {"intValue": str(i)}, INT64),
    st.builds(lambda i: {"intValue": i}, INT64),
    st.builds(lambda f: {"doubleValue": f}, st.floats(allow_nan=False, allow_infinity=False)),
    st.builds(
        lambda f: {"doubleValue": f}, st.sampled_from(["NaN", "Infinity", "-Infinity", "1.5"])
    ),
    st.builds(lambda b: {"bytesValue": base64.b64encode(b).decode()}, st.binary(max_size=6)),
    st.just({}),
)

ANY_VALUE = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.builds(lambda vs: {"arrayValue": {"values": vs}}, st.lists(inner, max_size=3)),
        st.builds(
            lambda kvs: {"kvlistValue": {"values": [{"key": k, "value": v} for k, v in kvs]}},
            st.lists(st.tuples(st.sampled_from("abc"), inner), max_size=3),
        ),
    ),
    max_leaves=6,
)

ATTRIBUTES = st.lists(
    st.builds(
        lambda k, v: {"key": k, "value": v}, st.sampled_from(["a", "b", "c", "d"]), ANY_VALUE
    ),
    max_size=4,
)


@st.composite
def spans(draw: st.DrawFn, trace_ids: list[bytes]) -> dict[str, Any]:
    """One span as bytes-valued ids (encoded later) and plain OTLP/JSON fields."""
    start = draw(st.integers(min_value=0, max_value=(1 << 64) - 1))
    return {
        "traceId": draw(st.sampled_from(trace_ids)),
        "spanId": draw(st.binary(min_size=8, max_size=8).filter(any)),
        "parentSpanId": draw(st.none() | st.binary(min_size=8, max_size=8).filter(any)),
        "name": draw(st.text(max_size=6)),
        "kind": draw(st.integers(min_value=0, max_value=6)),
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(draw(st.integers(min_value=0, max_value=(1 << 64) - 1))),
        "attributes": draw(ATTRIBUTES),
        "events": draw(
            st.lists(
                st.builds(
                    lambda n, a: {"name": n, "timeUnixNano": str(start), "attributes": a},
                    st.text(max_size=4),
                    ATTRIBUTES,
                ),
                max_size=2,
            )
        ),
        "links": draw(
            st.lists(
                st.builds(
                    lambda t, s, a: {"traceId": t, "spanId": s, "attributes": a},
                    st.binary(min_size=16, max_size=16).filter(any),
                    st.binary(min_size=8, max_size=8).filter(any),
                    ATTRIBUTES,
                ),
                max_size=1,
            )
        ),
        "status": {
            "code": draw(st.integers(min_value=0, max_value=2)),
            "message": draw(st.text(max_size=4)),
        },
    }


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A small request with byte ids; ``encode`` turns it into JSON-ready OTLP."""
    trace_ids = draw(
        st.lists(st.binary(min_size=16, max_size=16).filter(any), min_size=1, max_size=2)
    )
    resource_spans = []
    for _ in range(draw(st.integers(min_value=1, max_value=2))):
        scope_spans = [
            {
                "scope": {
                    "name": draw(st.sampled_from(["lib", "other"])),
                    "attributes": draw(ATTRIBUTES),
                },
                "spans": draw(st.lists(spans(trace_ids), max_size=3)),
            }
            for _ in range(draw(st.integers(min_value=1, max_value=2)))
        ]
        resource_spans.append(
            {"resource": {"attributes": draw(ATTRIBUTES)}, "scopeSpans": scope_spans}
        )
    return {"resourceSpans": resource_spans}


ID_KEYS = ("traceId", "spanId", "parentSpanId")


def encode(obj: Any, ids: str = "hex", snake: bool = False) -> Any:
    """The request as JSON-ready data: ids as hex / HEX / base64 variants, keys camel or snake."""
    if isinstance(obj, list):
        return [encode(v, ids, snake) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, raw in obj.items():
        if key in ID_KEYS and isinstance(raw, bytes):
            value = _encode_id(raw, ids)
        else:  # an attribute's "key" is data, never a field name
            value = raw if key == "key" else encode(raw, ids, snake)
        name = "".join("_" + c.lower() if c.isupper() else c for c in key) if snake else key
        out[name] = value
    return out


def _encode_id(raw: bytes, how: str) -> str:
    if how == "hex":
        return raw.hex()
    if how == "HEX":
        return raw.hex().upper()
    if how == "b64":
        return base64.b64encode(raw).decode()
    if how == "b64url":
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    raise ValueError(how)


def all_spans(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
