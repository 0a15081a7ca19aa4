"""A key repeated in one JSON object (issue 38.5): every decode path reads the last value, as
every JSON reader does, and records ``W_DUPLICATE_JSON_KEY`` naming the key, its JSON path, how
often it appears and the value kept — where it was taken silently before.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import orjson
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ingest_checks import same
from ingest_strategies import FAST, encode, requests

from valuechain.ingest.bytes.json_keys import duplicate_keys, may_repeat
from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export

PATHS = {
    "native": DecodeOptions(),
    "native, parts to msgspec": DecodeOptions(native_parts=False),
    "msgspec": DecodeOptions(native=False),
    "reference": DecodeOptions(native=False, fast=False),
}
EARLIER = "__EARLIER__"  # a key written before the one it repeats, renamed once serialised
SPAN = "resourceSpans[0].scopeSpans[0].spans[0]"


def _repeat(obj: dict[str, Any], key: str, earlier: Any) -> dict[str, Any]:
    """``obj`` with ``key`` also written before it, holding ``earlier`` (renamed in the text)."""
    return {EARLIER: earlier, **obj} if key in obj else obj


def _text(request: dict[str, Any], key: str, *, indent: bool = False) -> bytes:
    data = orjson.dumps(request, option=orjson.OPT_INDENT_2 if indent else 0)
    return data.replace(f'"{EARLIER}"'.encode(), f'"{key}"'.encode())


def _decode_all(data: bytes, name: str = "x.jsonl") -> DecodedSource:
    """``data`` decoded by every path, which all agree; the reference's."""
    decoded = {label: decode_export(data, name, options) for label, options in PATHS.items()}
    reference = decoded.pop("reference")
    for other in decoded.values():
        same(other, reference)
    return reference


def _dup_issues(decoded: DecodedSource) -> list[Any]:
    return [i for i in decoded.issues if i.code.value == "W_DUPLICATE_JSON_KEY"]


# where a key repeats: (the request with the earlier copy, the key, its JSON path, kept value)
def _places(otlp: SimpleNamespace) -> dict[str, tuple[dict[str, Any], str, str, str]]:
    span, request = otlp.span, otlp.request
    attribute = {"key": "k", "value": {"stringValue": "kept"}}
    return {
        "span name": (
            request(_repeat(span(1), "name", "dropped")),
            "name",
            f"{SPAN}.name",
            "span-1",
        ),
        "span id": (
            request(_repeat(span(1), "spanId", f"{9:016x}")),
            "spanId",
            f"{SPAN}.spanId",
            f"{1:016x}",
        ),
        "attribute key": (
            request(span(1, attributes=[_repeat(attribute, "key", "dropped")])),
            "key",
            f"{SPAN}.attributes[0].key",
            "k",
        ),
        "AnyValue variant": (
            request(
                span(
                    1,
                    attributes=[
                        {"key": "k", "value": _repeat(attribute["value"], "stringValue", 7)}
                    ],
                )
            ),
            "stringValue",
            f"{SPAN}.attributes[0].value.stringValue",
            "kept",
        ),
        "status code": (
            request(span(1, status=_repeat({"code": 2}, "code", 1))),
            "code",
            f"{SPAN}.status.code",
            "2",
        ),
        "request root": (
            _repeat(request(span(1)), "resourceSpans", request(span(9))["resourceSpans"]),
            "resourceSpans",
            "resourceSpans",
            '[{"resource":{"attributes":[{"key":"ser',
        ),
    }


PLACES = [
    "span name",
    "span id",
    "attribute key",
    "AnyValue variant",
    "status code",
    "request root",
]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("indent", [False, True], ids=["ndjson", "pretty document"])
def test_a_repeated_key_is_named_and_its_last_value_read(
    otlp: SimpleNamespace, place: str, indent: bool
) -> None:
    repeated, key, path, kept = _places(otlp)[place]
    good = orjson.dumps(otlp.request(otlp.span(2)))
    if indent:
        data = _text(repeated, key, indent=True)
    else:
        data = b"\n".join([good, _text(repeated, key), good]) + b"\n"
    decoded = _decode_all(data, "x.json" if indent else "x.jsonl")
    (issue,) = _dup_issues(decoded)
    assert issue.json_path == path
    assert issue.message.startswith(f"JSON key {key!r} appears 2 times in one object")
    assert f"the last value was kept: {kept}" in issue.message
    assert issue.value_excerpt.startswith(kept)
    assert decoded.accounting.records_quarantined == 0
    # the record reads as its object without the earlier copy: the same rows, nothing else said
    _reads_as(_decode_all(_text(repeated, key)), _decode_all(orjson.dumps(_drop(repeated))))


def _reads_as(decoded: DecodedSource, expected: DecodedSource) -> None:
    """``decoded`` holds what ``expected`` holds, and one W_DUPLICATE_JSON_KEY more."""
    (issue,) = _dup_issues(decoded)
    for name in expected.tables:
        if name != "issues":
            assert _rows(decoded.tables[name]) == _rows(expected.tables[name]), name
            assert decoded.tables[name].schema == expected.tables[name].schema, name
    assert [i for i in decoded.issues if i is not issue] == expected.issues


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    """The table's rows with NaN made comparable (Arrow's ``equals`` never finds NaN equal to
    NaN, so a generated ``doubleValue: "NaN"`` would fail an identical read)."""
    return [
        {k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
        for row in table.to_pylist()
    ]


def _drop(value: Any) -> Any:
    """``value`` without the earlier copies (what every reader reads)."""
    if isinstance(value, dict):
        return {k: _drop(v) for k, v in value.items() if k != EARLIER}
    if isinstance(value, list):
        return [_drop(v) for v in value]
    return value


def test_a_key_three_times_is_one_issue(otlp: SimpleNamespace) -> None:
    line = orjson.dumps(otlp.request(otlp.span(1, name="c")))
    line = line.replace(b'"name":"c"', b'"name":"a","name":"b","name":"c"')
    (issue,) = _dup_issues(_decode_all(line + b"\n"))
    assert "appears 3 times" in issue.message and issue.value_excerpt == "c"


@pytest.mark.parametrize(
    "text",
    [
        rb'{"a":"x\u0022y","b":"\"\\"}',  # a quote escaped either way, a backslash before one
        b'{"a" : 1 ,\n "b" :\t[ {"c" : "d"} ] }',  # whitespace around colons (Jackson's style)
        rb'{"a":"\\u0022"}',  # the text \u0022, not an escape: flagged, then found clean
    ],
)
def test_no_repeated_key_is_reported_where_there_is_none(text: bytes) -> None:
    assert duplicate_keys(text, orjson.loads(text)) == ()


def test_the_quote_count_flags_a_repeat_and_only_then_parses_again() -> None:
    text = b'{"a":1,"a":"x"}'
    assert may_repeat(text, orjson.dumps(orjson.loads(text)))
    assert not may_repeat(b'{"a":"\\u0022"}', b'{"a":"\\""}')
    (dup,) = duplicate_keys(text, orjson.loads(text))
    assert (dup.path, dup.key, dup.count, dup.kept) == ("a", "a", 2, "x")


# ---------------------------------------------------------------------------- property
def _objects(value: Any, path: str = "") -> list[tuple[dict[str, Any], str]]:
    """Every object under ``value`` with its JSON path."""
    found: list[tuple[dict[str, Any], str]] = []
    if isinstance(value, dict):
        found.append((value, path))
        for key, item in value.items():
            found += _objects(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _objects(item, f"{path}[{i}]")
    return found


@FAST
@given(requests().map(encode), st.data())
def test_any_key_repeated_anywhere_reads_as_its_last_value(
    request: dict[str, Any], data: st.DataObject
) -> None:
    objects = [(obj, path) for obj, path in _objects(request) if obj]
    obj, path = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(sorted(obj)))
    earlier = data.draw(st.sampled_from(["x", 7, None, [], {"stringValue": "y"}]))
    original = dict(obj)
    obj.clear()
    obj.update({EARLIER: earlier, **original})
    decoded = _decode_all(_text(request, key) + b"\n")
    obj.clear()
    obj.update(original)
    (issue,) = _dup_issues(decoded)
    assert issue.json_path == (f"{path}.{key}" if path else key)
    _reads_as(decoded, _decode_all(orjson.dumps(request) + b"\n"))
