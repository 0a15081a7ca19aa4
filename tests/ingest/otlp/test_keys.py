"""ingest/otlp/keys.py: snake_case field names give the tables camelCase gives (TRACE-FORMAT §1.2);
unknown fields are ignored and kept.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
from ingest_checks import codes, decode, rows

from valuechain.ingest.decode import DecodedSource


def _snake(obj: Any) -> Any:
    """The same request with every known field name in snake_case (protobuf printer style)."""
    if isinstance(obj, list):
        return [_snake(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, value in obj.items():
        name = "".join("_" + c.lower() if c.isupper() else c for c in key)
        out[name] = value if key in ("key",) else _snake(value)
    return out


def _rich_request(otlp: SimpleNamespace) -> dict[str, Any]:
    return otlp.request(
        otlp.span(1),
        otlp.span(
            2,
            parentSpanId=f"{1:016x}",
            traceState="k=v",
            flags=257,
            droppedAttributesCount=1,
            status={"code": 2, "message": "boom"},
            attributes=[
                {"key": "s", "value": {"stringValue": "v"}},
                {
                    "key": "kv",
                    "value": {
                        "kvlistValue": {"values": [{"key": "a", "value": {"intValue": "1"}}]}
                    },
                },
                {"key": "arr", "value": {"arrayValue": {"values": [{"boolValue": True}]}}},
            ],
            events=[
                {
                    "timeUnixNano": str(otlp.START_NS),
                    "name": "e",
                    "attributes": [{"key": "x", "value": {"doubleValue": 1.5}}],
                }
            ],
            links=[
                {
                    "traceId": otlp.TRACE_ID,
                    "spanId": f"{1:016x}",
                    "traceState": "t",
                    "attributes": [],
                }
            ],
        ),
        resource={
            "attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}],
            "droppedAttributesCount": 2,
        },
    )


def _tables_without_paths(decoded: DecodedSource) -> dict[str, pa.Table]:
    out = {}
    for name in ("resources", "scopes", "spans", "attributes", "events", "links"):
        table = decoded.tables[name]
        out[name] = (
            table.drop_columns(["json_path"]) if "json_path" in table.column_names else table
        )
    return out


def test_snake_case_body_gives_identical_tables(otlp: SimpleNamespace) -> None:
    camel = _rich_request(otlp)
    snake = _snake(camel)
    assert "resource_spans" in snake and "start_time_unix_nano" in json.dumps(snake)
    got_camel, got_snake = decode(camel), decode(snake)
    assert codes(got_camel) == {"W_DROPPED_AT_SOURCE": 1}
    assert codes(got_snake) == {
        "W_DROPPED_AT_SOURCE": 1,
        "I_SNAKE_CASE_KEYS": got_snake.issue_counts()["I_SNAKE_CASE_KEYS"],
    }
    assert got_snake.issue_counts()["I_SNAKE_CASE_KEYS"] >= 1
    assert got_snake.encoding_flavor == "proto3-generic"
    assert _tables_without_paths(got_snake) == _tables_without_paths(got_camel)


def test_unknown_fields_are_ignored_and_kept(otlp: SimpleNamespace) -> None:
    request = otlp.request(otlp.span(futureField={"a": 1}))
    request["resourceSpans"][0]["resource"]["entityRefs"] = []  # known (development) field
    request["extra"] = "top"
    got = decode(request)
    assert codes(got) == {"W_UNKNOWN_FIELD": 2}
    assert rows(got, "unknown_fields", "json_path", "raw_json") == [
        {"json_path": "extra", "raw_json": '"top"'},
        {"json_path": "resourceSpans[0].scopeSpans[0].spans[0].futureField", "raw_json": '{"a":1}'},
    ]
