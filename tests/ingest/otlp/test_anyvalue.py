"""ingest/otlp/anyvalue.py: every AnyValue variant in both spellings (TRACE-FORMAT §1.5), the
canonical JSON of arrays and kvlists, out-of-range and malformed ints, extra variants, depth.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any

import pytest
from ingest_checks import codes, decode, issue, one_attribute, rows


def test_kvlist_nested_is_canonical_json(otlp: SimpleNamespace) -> None:
    value = {
        "kvlistValue": {
            "values": [
                {"key": "b", "value": {"intValue": "1"}},
                {
                    "key": "a",
                    "value": {
                        "arrayValue": {
                            "values": [
                                {"stringValue": "x"},
                                {"doubleValue": "NaN"},
                                {"bytesValue": "AQI="},
                                {"boolValue": False},
                                {},
                                {"kvlistValue": {"values": [{"key": "z", "value": {}}]}},
                            ]
                        }
                    },
                },
            ]
        }
    }
    got = one_attribute(otlp, value)
    (row,) = rows(got, "attributes", "value_type", "json_value", "string_value")
    assert row["value_type"] == "kvlist"
    # keys in document order, bytes as hex, NaN and empty values as null, no whitespace
    assert row["json_value"] == '{"b":1,"a":["x",null,"0102",false,null,{"z":null}]}'
    assert json.loads(row["json_value"]) == {
        "b": 1,
        "a": ["x", None, "0102", False, None, {"z": None}],
    }
    assert codes(got) == {}


def test_kvlist_with_repeated_key_keeps_the_first(otlp: SimpleNamespace) -> None:
    value = {
        "kvlistValue": {
            "values": [
                {"key": "a", "value": {"intValue": "1"}},
                {"key": "a", "value": {"intValue": "2"}},
            ]
        }
    }
    got = one_attribute(otlp, value)
    assert rows(got, "attributes", "json_value") == [{"json_value": '{"a":1}'}]
    assert codes(got) == {"W_DUPLICATE_ATTRIBUTE_KEY": 1}


def test_empty_array_and_mixed_array(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(
                attributes=[
                    {"key": "empty", "value": {"arrayValue": {}}},
                    {
                        "key": "mixed",
                        "value": {
                            "arrayValue": {"values": [{"intValue": 7}, {"stringValue": "s"}]}
                        },
                    },
                    {"key": "none", "value": {}},
                    {"key": "null", "value": None},
                ]
            )
        )
    )
    assert rows(got, "attributes", "key", "value_type", "json_value") == [
        {"key": "empty", "value_type": "array", "json_value": "[]"},
        {"key": "mixed", "value_type": "array", "json_value": '[7,"s"]'},
        {"key": "none", "value_type": "empty", "json_value": None},
        {"key": "null", "value_type": "empty", "json_value": None},
    ]


@pytest.mark.parametrize(
    ("value", "column", "expected"),
    [
        ({"doubleValue": "NaN"}, "double_value", math.nan),
        ({"doubleValue": "Infinity"}, "double_value", math.inf),
        ({"doubleValue": "-Infinity"}, "double_value", -math.inf),
        ({"doubleValue": "2.5"}, "double_value", 2.5),
        ({"doubleValue": 2048}, "double_value", 2048.0),
        ({"intValue": "-42"}, "int_value", -42),
        ({"boolValue": True}, "bool_value", True),
        ({"bytesValue": "-_8="}, "bytes_value", b"\xfb\xff"),  # URL-safe base64
        ({"bytesValue": "+/8"}, "bytes_value", b"\xfb\xff"),  # unpadded
        ({"stringValue": "ünïcode ✓"}, "string_value", "ünïcode ✓"),
    ],
)
def test_scalar_variants(
    otlp: SimpleNamespace, value: dict[str, Any], column: str, expected: Any
) -> None:
    got = one_attribute(otlp, value)
    (row,) = rows(got, "attributes", column)
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(row[column])
    else:
        assert row[column] == expected
    assert codes(got) == {}


@pytest.mark.parametrize(
    ("raw", "json_value"),
    [
        ('"9223372036854775808"', "9223372036854775808"),
        ('"-9223372036854775809"', "-9223372036854775809"),
        ("9223372036854775808", "9223372036854775808"),  # JSON number, still within uint64
        ("123456789012345678901234", "1.2345678901234569e+23"),  # parsed as a float upstream
    ],
)
def test_int_out_of_int64_range_keeps_raw_text(
    otlp: SimpleNamespace, raw: str, json_value: str
) -> None:
    data = otlp.dumps(
        otlp.request(otlp.span(attributes=[{"key": "k", "value": {"intValue": "X"}}]))
    )
    got = decode(data.replace(b'"X"', raw.encode()))
    assert got.issue_counts()["W_INT_OUT_OF_RANGE"] == 1
    (row,) = rows(got, "attributes", "value_type", "int_value", "json_value")
    assert (row["value_type"], row["int_value"]) == ("int", None)
    assert row["json_value"] == json_value


def test_int64_extremes_fit(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(
                attributes=[
                    {"key": "max", "value": {"intValue": "9223372036854775807"}},
                    {"key": "min", "value": {"intValue": "-9223372036854775808"}},
                ]
            )
        )
    )
    assert rows(got, "attributes", "int_value") == [
        {"int_value": 9223372036854775807},
        {"int_value": -9223372036854775808},
    ]
    assert codes(got) == {}


@pytest.mark.parametrize("raw", ["--5", "1e3", "0x10", "", " 1", "١"])
def test_malformed_int_strings_are_invalid_values_not_crashes(
    otlp: SimpleNamespace, raw: str
) -> None:
    got = one_attribute(otlp, {"intValue": raw})
    assert codes(got) == {"W_INVALID_VALUE": 1}
    assert rows(got, "attributes", "int_value", "json_value") == [
        {"int_value": None, "json_value": json.dumps(raw, ensure_ascii=False)}
    ]


def test_multiple_variants_keep_the_first_and_the_rest_raw(otlp: SimpleNamespace) -> None:
    got = one_attribute(otlp, {"stringValue": "first", "intValue": "2", "boolValue": True})
    assert codes(got) == {"W_MULTIPLE_VARIANTS": 2}
    assert rows(got, "attributes", "value_type", "string_value") == [
        {"value_type": "string", "string_value": "first"}
    ]
    assert rows(got, "unknown_fields", "json_path", "raw_json") == [
        {
            "json_path": "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue",
            "raw_json": '"2"',
        },
        {
            "json_path": "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.boolValue",
            "raw_json": "true",
        },
    ]


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"stringValue": "leaf"}
    for level in range(depth):
        value = (
            {"arrayValue": {"values": [value]}}
            if level % 2
            else {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
        )
    return value


def test_depth_64_is_kept_65_is_quarantined(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(
                attributes=[
                    {"key": "ok", "value": _nested(64)},
                    {"key": "deep", "value": _nested(65)},
                ]
            )
        )
    )
    assert codes(got) == {"E_TOO_DEEP": 1}
    assert "'deep'" in issue(got, "E_TOO_DEEP").message
    assert "64" in issue(got, "E_TOO_DEEP").message
    assert rows(got, "attributes", "key") == [{"key": "ok"}]
    (quarantined,) = rows(got, "quarantine", "json_path", "raw_json", "codes")
    assert quarantined["json_path"].endswith("attributes[1]")
    assert quarantined["codes"] == ["E_TOO_DEEP"]
    assert json.loads(quarantined["raw_json"])["value"] == _nested(65)
    assert (got.accounting.attributes_read, got.accounting.attributes_quarantined) == (3, 1)


def test_snake_case_anyvalue_keys(otlp: SimpleNamespace) -> None:
    got = one_attribute(
        otlp, {"kvlist_value": {"values": [{"key": "a", "value": {"string_value": "s"}}]}}
    )
    assert rows(got, "attributes", "value_type", "json_value") == [
        {"value_type": "kvlist", "json_value": '{"a":"s"}'}
    ]
    assert "I_SNAKE_CASE_KEYS" in codes(got)
