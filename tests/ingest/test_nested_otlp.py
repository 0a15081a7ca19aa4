"""An OTLP request nested in another JSON document is rejected naming where it sits (39.3)."""

from __future__ import annotations

import json

import pytest

from valuechain.ingest.bytes.recognise import describe_non_otlp, nested_otlp

REQUEST = {"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}


@pytest.mark.parametrize(
    ("doc", "where", "jq"),
    [
        (
            {"trace_requests": [{"pbreq": REQUEST}]},
            "at trace_requests[0].pbreq",
            ".trace_requests[].pbreq'",
        ),
        (
            {"trace_requests": [{"pbreq": json.dumps(REQUEST)}]},
            "as a JSON string at trace_requests[0].pbreq",
            ".trace_requests[].pbreq | fromjson'",
        ),
        ({"data": {"export": {"resource_spans": []}}}, "at data.export", ".data.export'"),
    ],
)
def test_nested_request_is_named_with_its_path(doc: dict[str, object], where: str, jq: str) -> None:
    text = describe_non_otlp(doc)
    assert text.startswith("an OTLP trace request nested inside another JSON document")
    assert where in text and jq in text


def test_no_nested_request_keeps_the_plain_description() -> None:
    assert nested_otlp({"a": [{"b": "resourceSpans"}], "c": '{"x": 1}'}) is None
    assert describe_non_otlp({"a": 1}) == "a JSON object without resourceSpans (top-level keys: a)"
