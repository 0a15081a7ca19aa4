"""Hypothesis strategies for the fuzz tests: valid OTLP exports in every framing, and the ways
real files break them.

``exports()`` draws a valid export: a request of every AnyValue kind (``ingest_strategies``),
ids in hex, upper-case hex, base64 or URL-safe base64, camelCase or snake_case keys, traces
split over several records, and one framing of ``FRAMINGS`` (a JSON document, concatenated
pretty documents, NDJSON, gzip, zstd, the collector's length-prefixed JSON or protobuf, a bare
protobuf request). ``broken_exports()`` draws one and breaks it: before it is written (a key
dropped, a value of the wrong type, nesting far beyond the cap, a huge value, a lone surrogate)
and after (truncated, bytes flipped, invalid UTF-8 inserted, a slice deleted or repeated).

Imported by name (``from otlp_fuzz import …``); see ``conftest.py``.
"""

from __future__ import annotations

import gzip
import json
import struct
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from ingest_strategies import encode, requests

from valuechain.ingest.bytes.compression import zstd_compress

ID_FORMS = ("hex", "HEX", "b64", "b64url")
FRAMINGS = (
    "json",
    "json-pretty-concatenated",
    "ndjson",
    "ndjson-gzip",
    "json-gzip",
    "ndjson-zstd",
    "json-length-prefixed-zstd",
    "proto-length-prefixed",
    "proto-length-prefixed-zstd",
    "proto-bare",
)


@dataclass(frozen=True, slots=True)
class Export:
    """Bytes to decode, and how they were made (shown when an example fails)."""

    data: bytes
    framing: str
    mutations: tuple[str, ...] = ()


def _split(request: dict[str, Any]) -> list[dict[str, Any]]:
    """One request per span, each under its resource and scope: a trace over many records."""
    out = []
    for rs in request["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                scope = {**ss, "spans": [span]}
                out.append({**rs, "scopeSpans": [scope]})
    return [{"resourceSpans": [r]} for r in out] or [request]


@st.composite
def records(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Valid requests (byte ids) of one export: one, or its spans split over several."""
    request = draw(requests())
    return _split(request) if draw(st.booleans()) else [request]


def _proto(request: dict[str, Any]) -> bytes:
    from google.protobuf import json_format  # noqa: PLC0415
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
        ExportTraceServiceRequest,
    )

    message = json_format.ParseDict(encode(request, "b64"), ExportTraceServiceRequest())
    return bytes(message.SerializeToString())


def _prefixed(payloads: list[bytes]) -> bytes:
    return b"".join(struct.pack(">I", len(p)) + p for p in payloads)


def frame(requests_: list[Any], framing: str, ids: list[str] | None, snake: bool = False) -> bytes:
    """Write requests in ``framing``: byte-id ones encoded with ``ids`` (one form per record,
    in turn), JSON-ready ones (``ids`` None) as they are; protobuf takes byte-id ones."""
    if framing.startswith("proto"):
        payloads = [_proto(r) for r in requests_]
        if framing == "proto-bare":
            return b"".join(payloads)  # concatenated messages merge into one request
        if framing.endswith("-zstd"):
            payloads = [zstd_compress(p) for p in payloads]
        return _prefixed(payloads)
    docs = [
        r if ids is None else encode(r, ids[i % len(ids)], snake) for i, r in enumerate(requests_)
    ]
    if framing == "json-length-prefixed-zstd":
        return _prefixed([zstd_compress(_dumps(d)) for d in docs])
    if framing == "json-pretty-concatenated":
        return b"\n".join(json.dumps(d, indent=2).encode() for d in docs)
    if framing.startswith("ndjson"):
        body = b"".join(_dumps(d) + b"\n" for d in docs)
    else:  # one document: the records' resourceSpans together
        body = _dumps({"resourceSpans": [rs for d in docs for rs in _resource_spans(d)]})
    if framing.endswith("-gzip"):
        return gzip.compress(body, mtime=0)
    if framing.endswith("-zstd"):
        return zstd_compress(body)
    return body


def _resource_spans(doc: Any) -> list[Any]:
    if isinstance(doc, dict):
        found = doc.get("resourceSpans", doc.get("resource_spans", []))
        return found if isinstance(found, list) else [found]
    return [doc]


def _dumps(obj: Any) -> bytes:
    """JSON as a lenient producer writes it: lone surrogates escaped, bare NaN allowed."""
    return json.dumps(obj, separators=(",", ":")).encode()


@st.composite
def exports(draw: st.DrawFn) -> Export:
    framing = draw(st.sampled_from(FRAMINGS))
    ids = draw(st.lists(st.sampled_from(ID_FORMS), min_size=1, max_size=2))
    snake = draw(st.booleans())
    return Export(frame(draw(records()), framing, ids, snake), framing)


# ------------------------------------------------------------------ breaking it
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(1 << 70), max_value=1 << 70)
    | st.floats()
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=5,
)


# Nothing in a strategy may depend on the interpreter's stack: a draw that raises
# RecursionError near the limit raises or not with the caller's depth, so Hypothesis replays
# it differently while shrinking (``FlakyStrategyDefinition``). Deep values are built to at
# most DEEP_MAX levels (each level 3-4 JSON containers: ``json.dumps`` stays far below the
# limit), copied and walked iteratively, and never walked into (paths end at WALK_DEPTH).
DEEP_MAX = 150
WALK_DEPTH = 40


def _children(obj: Any) -> list[tuple[Any, Any]]:
    if isinstance(obj, dict):
        return list(obj.items())
    return list(enumerate(obj)) if isinstance(obj, list) else []


def _nodes(obj: Any) -> list[tuple[Any, ...]]:
    """The path of every dict entry and list item below ``obj`` (in a fixed order), down to
    ``WALK_DEPTH`` levels: what a structural mutation may pick."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), obj)]
    while stack:
        path, value = stack.pop()
        if len(path) >= WALK_DEPTH:
            continue
        below = [((*path, key), child) for key, child in _children(value)]
        out.extend(p for p, _ in below)
        stack.extend(reversed(below))
    return out


def _clone(obj: Any) -> Any:
    """A deep copy of JSON-ready data without recursion (``copy.deepcopy`` recurses)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, obj)]
    while stack:
        into, key, value = stack.pop()
        if isinstance(value, dict | list):
            copy_: Any = dict.fromkeys(value) if isinstance(value, dict) else [None] * len(value)
            into[key] = copy_
            stack.extend((copy_, k, v) for k, v in _children(value))
        else:
            into[key] = value
    return root[0]


def _parent(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        obj = obj[key]
    return obj


def _nested(depth: int, kind: str) -> dict[str, Any]:
    value: dict[str, Any] = {"stringValue": "bottom"}
    for _ in range(depth):
        if kind == "array":
            value = {"arrayValue": {"values": [value]}}
        else:
            value = {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
    return value


@st.composite
def structural(draw: st.DrawFn, doc: dict[str, Any]) -> str:
    """Break one JSON-ready document in place; say how."""
    nodes = _nodes(doc)
    if not nodes:
        return "nothing to break"
    path = nodes[draw(st.integers(min_value=0, max_value=len(nodes) - 1))]
    parent = _parent(doc, path)
    how = draw(st.sampled_from(["drop", "wrong type", "deep", "huge", "surrogate", "duplicate"]))
    if how == "drop":
        del parent[path[-1]]
    elif how == "wrong type":
        parent[path[-1]] = draw(JSON_VALUES)
    elif how == "deep":
        depth = draw(st.integers(min_value=60, max_value=DEEP_MAX))  # past the cap of 64
        parent[path[-1]] = _nested(depth, draw(st.sampled_from(["array", "kvlist"])))
    elif how == "huge":
        size = draw(st.sampled_from([1 << 10, 1 << 16, (1 << 20) + 1]))
        parent[path[-1]] = {"stringValue": "x" * size}
    elif how == "surrogate":
        parent[path[-1]] = {"stringValue": "a\ud800b" + draw(st.sampled_from(["", "\udfff"]))}
    elif isinstance(parent, list):  # duplicate an item (a span twice, an attribute twice)
        parent.append(_clone(parent[path[-1]]))
    else:
        return "nothing duplicated"
    return f"{how} at {'.'.join(map(str, path))}"


@st.composite
def byte_level(draw: st.DrawFn, data: bytes) -> tuple[bytes, str]:
    if not data:
        return data, "empty"
    how = draw(st.sampled_from(["truncate", "flip", "invalid utf-8", "delete", "repeat"]))
    at = draw(st.integers(min_value=0, max_value=len(data) - 1))
    if how == "truncate":
        return data[:at], f"truncated at {at}"
    if how == "flip":
        flipped = bytearray(data)
        for _ in range(draw(st.integers(min_value=1, max_value=4))):
            i = draw(st.integers(min_value=0, max_value=len(data) - 1))
            flipped[i] ^= draw(st.integers(min_value=1, max_value=255))
        return bytes(flipped), "flipped bytes"
    if how == "invalid utf-8":
        junk = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xff", b"\x00"]))
        return data[:at] + junk + data[at:], f"{junk!r} at {at}"
    end = draw(st.integers(min_value=at, max_value=min(len(data), at + 64)))
    if how == "delete":
        return data[:at] + data[end:], f"deleted {at}:{end}"
    return data[:end] + data[at:end] + data[end:], f"repeated {at}:{end}"


@st.composite
def broken_exports(draw: st.DrawFn) -> Export:
    """A valid export broken before it is written, after, or both."""
    framing = draw(
        st.sampled_from([f for f in FRAMINGS if not f.startswith("proto")] * 2 + list(FRAMINGS))
    )
    ids = draw(st.lists(st.sampled_from(ID_FORMS), min_size=1, max_size=2))
    snake = draw(st.booleans())
    docs: list[Any] = [encode(r, ids[0], snake) for r in draw(records())]
    mutations: list[str] = []
    structure = not framing.startswith("proto") and draw(st.booleans())
    if structure:
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            doc = docs[draw(st.integers(min_value=0, max_value=len(docs) - 1))]
            mutations.append(draw(structural(doc)))
    if framing.startswith("proto"):
        data = frame(draw(records()), framing, ids)
    else:
        data = frame(docs, framing, None)
    if not structure or draw(st.booleans()):
        data, how = draw(byte_level(data))
        mutations.append(how)
    return Export(data, framing, tuple(mutations))
