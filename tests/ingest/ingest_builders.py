"""Inputs the ingest tests share: small synthetic exports, framings, broken documents, records.

Imported by name (``from ingest_builders import …``): ``tests/ingest/conftest.py`` puts this
folder on ``sys.path`` for the test files below it, as pytest's prepend import mode does.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson

from valuechain.store import Database
from valuechain.synth import SynthConfig
from valuechain.synth.writers import _proto

Write = Callable[[str, bytes | dict[str, Any]], Path]  # the ``write`` fixture
Dump = Callable[[Database], dict[str, list[tuple[Any, ...]]]]  # the ``dump`` fixture

SMALL = SynthConfig(runs=2, cases=3, models=2, reps=2, seed=7)

FRAMINGS: dict[str, dict[str, Any]] = {
    "ndjson-gzip": {"ndjson": True, "gzip": True},
    "ndjson-zstd-native": {"ndjson": True, "zstd": "native"},
    "json-zstd-legacy": {"zstd": "legacy"},
    "proto-length-prefixed": {"proto": True},
    "proto-zstd-legacy": {"proto": True, "zstd": "legacy"},
    "proto-zstd-native": {"proto": True, "zstd": "native"},
}


def three_spans(otlp: SimpleNamespace) -> bytes:
    """One document holding spans 1, 2 and 3."""
    return otlp.dumps(otlp.request(otlp.span(1), otlp.span(2), otlp.span(3)))


def cut_in_third_span(data: bytes) -> bytes:
    """``three_spans`` cut inside the third span's id: two complete spans precede the cut."""
    return data[: data.index(b'"spanId":"0000000000000003"') + 5]


def ndjson_lines(otlp: SimpleNamespace, n: int) -> list[bytes]:
    """``n`` one-span requests, one JSON line each (without the newline)."""
    return [orjson.dumps(otlp.request(otlp.span(i + 1))) for i in range(n)]


def length_prefixed(*payloads: bytes) -> bytes:
    """The collector's length-prefixed framing: a 4-byte big-endian length before each payload."""
    return b"".join(struct.pack(">I", len(p)) + p for p in payloads)


def pb_record(otlp: SimpleNamespace, n: int) -> bytes:
    """A serialized ExportTraceServiceRequest holding span ``n``."""
    return _proto(otlp.request(otlp.span(n)))


def array_attribute(*items: str | dict[str, Any]) -> dict[str, Any]:
    """An attribute holding an arrayValue; a str item is a plain stringValue."""
    values = [{"stringValue": i} if isinstance(i, str) else i for i in items]
    return {"key": "k", "value": {"arrayValue": {"values": values}}}
