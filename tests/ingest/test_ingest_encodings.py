"""Encodings the conformance files leave out (TRACE-FORMAT §1.2-§1.7): what the lenient reader
accepts, what it records, and the issue it raises for each construct.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

T = "5b8efff798038103d269b633813fc60c"
S = "eee19b7ec3c1b174"


def decode(data: bytes | dict[str, Any], **options: Any) -> DecodedSource:
    out = decode_export(data, "test.json", DecodeOptions(**options))
    assert out.rejection is None, out.rejection
    assert out.accounting.check(out.span_count, out.tables["attributes"].num_rows) == []
    return out


def codes(decoded: DecodedSource) -> dict[str, int]:
    return dict(decoded.issue_counts())


def issue(decoded: DecodedSource, code: str) -> Any:
    (found,) = [i for i in decoded.issues if i.code.value == code]
    return found


def rows(decoded: DecodedSource, table: str, *columns: str) -> list[dict[str, Any]]:
    """Some columns of a decoded table (attributes: span-level ones only)."""
    data = decoded.tables[table]
    if table == "attributes":
        data = data.filter(pc.equal(data["owner_type"], "span"))
    return data.select(list(columns)).to_pylist()


def one_attribute(otlp: SimpleNamespace, value: Any, **options: Any) -> DecodedSource:
    return decode(otlp.request(otlp.span(attributes=[{"key": "k", "value": value}])), **options)


# ------------------------------------------------------------------ AnyValue (§1.5)
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


def test_nan_strings_need_no_issue_but_bare_tokens_do(otlp: SimpleNamespace) -> None:
    strings = otlp.dumps(
        otlp.request(otlp.span(attributes=[{"key": "k", "value": {"doubleValue": "NaN"}}]))
    )
    bare = strings.replace(b'"NaN"', b"NaN")
    assert b"NaN}" in bare
    assert codes(decode(strings)) == {}
    for data in (bare, bare.replace(b"NaN", b"-Infinity")):
        got = decode(data)
        assert codes(got) == {"W_NONSTANDARD_JSON": 1}
        assert "NaN/Infinity" in issue(got, "W_NONSTANDARD_JSON").message
        (value,) = rows(got, "attributes", "double_value")
        assert math.isnan(value["double_value"]) or value["double_value"] == -math.inf


def test_bare_nan_in_a_pretty_printed_document(otlp: SimpleNamespace) -> None:
    pretty = json.dumps(
        otlp.request(otlp.span(attributes=[{"key": "k", "value": {"doubleValue": math.inf}}])),
        indent=2,
    ).encode()
    assert b"Infinity" in pretty
    got = decode(pretty)
    assert codes(got) == {"W_NONSTANDARD_JSON": 1}
    assert rows(got, "attributes", "double_value") == [{"double_value": math.inf}]


def test_lone_surrogate_in_a_string_value(otlp: SimpleNamespace) -> None:
    data = otlp.dumps(
        otlp.request(otlp.span(attributes=[{"key": "k", "value": {"stringValue": "aXb"}}]))
    )
    data = data.replace(b"aXb", b"a\\ud800b")
    got = decode(data)
    assert codes(got) == {"W_INVALID_UTF8": 1}
    found = issue(got, "W_INVALID_UTF8")
    assert found.json_path.endswith("attributes[0].value")
    assert "U+FFFD" in found.message
    (row,) = rows(got, "attributes", "string_value", "json_value")
    assert row["string_value"] == "a\ufffdb"
    assert row["json_value"] == '"a\\ud800b"'  # the original escaped text, kept beside it


def test_lone_surrogates_in_keys_and_names(otlp: SimpleNamespace) -> None:
    data = otlp.dumps(
        otlp.request(
            otlp.span(name="nXm", attributes=[{"key": "kXk", "value": {"boolValue": True}}])
        )
    )
    data = data.replace(b"nXm", b"n\\udc00m").replace(b"kXk", b"k\\ud800")
    got = decode(data)
    assert codes(got) == {"W_INVALID_UTF8": 1}
    assert "2 string(s)" in issue(got, "W_INVALID_UTF8").message
    assert rows(got, "spans", "name") == [{"name": "n\ufffdm"}]
    assert rows(got, "attributes", "key") == [{"key": "k\ufffd"}]


def test_invalid_utf8_bytes(otlp: SimpleNamespace) -> None:
    data = otlp.dumps(otlp.request(otlp.span(name="nXm"))).replace(b"X", b"\xff")
    got = decode(data)
    assert codes(got) == {"W_INVALID_UTF8": 1}
    assert issue(got, "W_INVALID_UTF8").byte_offset == data.index(b"\xff")
    assert rows(got, "spans", "name") == [{"name": "n\ufffdm"}]


def test_surrogates_in_a_caller_built_dict(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(name="a\ud800", attributes=[{"key": "k", "value": {"stringValue": "\udfff"}}])
        )
    )
    assert rows(got, "spans", "name") == [{"name": "a\ufffd"}]
    assert codes(got) == {"W_INVALID_UTF8": 2}


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


def test_numeric_int64_is_accepted_and_noted_once_per_source(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(
                startTimeUnixNano=1_700_000_000_000_000_000,
                endTimeUnixNano=1_700_000_000_000_000_500,
                attributes=[{"key": "k", "value": {"intValue": 5}}],
            )
        )
    )
    assert codes(got) == {"I_NUMERIC_INT64": 3}
    assert len([i for i in got.issues if i.code.value == "I_NUMERIC_INT64"]) == 1
    assert rows(got, "spans", "start_time_unix_nano", "duration_ns") == [
        {"start_time_unix_nano": 1_700_000_000_000_000_000, "duration_ns": 500}
    ]
    assert rows(got, "attributes", "int_value") == [{"int_value": 5}]


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


def test_document_nested_beyond_any_parser_is_rejected_not_a_crash() -> None:
    data = b'{"resourceSpans":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    out = decode_export(data, "deep.json")
    assert out.status == "rejected"
    assert out.rejection is not None and out.rejection.code == "E_INVALID_RECORD"
    assert "nested too deeply" in str(out.rejection)


def test_duplicate_attribute_keys_all_kept_in_order(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(
                attributes=[
                    {"key": "k", "value": {"stringValue": "a"}},
                    {"key": "other", "value": {"stringValue": "b"}},
                    {"key": "k", "value": {"intValue": "2"}},
                ]
            )
        )
    )
    assert codes(got) == {"W_DUPLICATE_ATTRIBUTE_KEY": 1}
    found = issue(got, "W_DUPLICATE_ATTRIBUTE_KEY")
    assert found.json_path.endswith("attributes[2]")
    assert "'k'" in found.message
    assert rows(got, "attributes", "ordinal", "key", "string_value", "int_value") == [
        {"ordinal": 0, "key": "k", "string_value": "a", "int_value": None},
        {"ordinal": 1, "key": "other", "string_value": "b", "int_value": None},
        {"ordinal": 2, "key": "k", "string_value": None, "int_value": 2},
    ]


def test_large_values_move_to_large_values(
    otlp: SimpleNamespace, db: Database, write: Callable[[str, bytes | dict[str, Any]], Path]
) -> None:
    text = "x" * 5000
    blob = bytes(range(256)) * 20
    request = otlp.request(
        otlp.span(
            attributes=[
                {"key": "transcript", "value": {"stringValue": text}},
                {"key": "screenshot", "value": {"bytesValue": base64.b64encode(blob).decode()}},
                {"key": "small", "value": {"stringValue": "y" * 4096}},
            ]
        )
    )
    got = decode(request, large_value_threshold=4096)
    assert codes(got) == {"I_LARGE_VALUE": 2}
    assert rows(got, "large_values", "sha256", "length") == [
        {"sha256": hashlib.sha256(text.encode()).digest(), "length": 5000},
        {"sha256": hashlib.sha256(blob).digest(), "length": len(blob)},
    ]
    assert rows(got, "attributes", "string_value", "bytes_value", "large_value_ref") == [
        {"string_value": None, "bytes_value": None, "large_value_ref": 0},
        {"string_value": None, "bytes_value": None, "large_value_ref": 1},
        {"string_value": "y" * 4096, "bytes_value": None, "large_value_ref": None},
    ]
    report = import_paths(db, [write("big.json", request)], None)  # default threshold: 1 MiB
    assert report.ok and db.sql("SELECT count(*) FROM core.large_values").item() == 0
    path = write(
        "big2.json",
        otlp.request(
            otlp.span(
                2, attributes=request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]
            )
        ),
    )
    assert import_paths(
        db, [path], ImportOptions(decode=DecodeOptions(large_value_threshold=4096))
    ).ok
    view = db.sql(
        "SELECT key, string_value, bytes_value, is_large_value FROM attributes "
        "WHERE span_id = '0000000000000002' AND owner_type = 'span' ORDER BY ordinal"
    ).rows()
    assert view == [
        ("transcript", text, None, True),
        ("screenshot", None, blob.hex(), True),
        ("small", "y" * 4096, None, False),
    ]
    stored = db.sql("SELECT sha256, length FROM core.large_values ORDER BY large_value_ref").rows()
    assert stored == [
        (hashlib.sha256(text.encode()).digest(), 5000),
        (hashlib.sha256(blob).digest(), len(blob)),
    ]


# ------------------------------------------------------------------ keys, enums, ids
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


def test_snake_case_anyvalue_keys(otlp: SimpleNamespace) -> None:
    got = one_attribute(
        otlp, {"kvlist_value": {"values": [{"key": "a", "value": {"string_value": "s"}}]}}
    )
    assert rows(got, "attributes", "value_type", "json_value") == [
        {"value_type": "kvlist", "json_value": '{"a":"s"}'}
    ]
    assert "I_SNAKE_CASE_KEYS" in codes(got)


def test_enum_names_read_as_ints(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(otlp.span(kind="SPAN_KIND_CLIENT", status={"code": "STATUS_CODE_ERROR"}))
    )
    assert codes(got) == {"I_ENUM_NAMES": 2}
    assert got.encoding_flavor == "proto3-generic"
    assert rows(got, "spans", "kind", "kind_name_raw", "status_code", "status_code_name_raw") == [
        {
            "kind": 3,
            "kind_name_raw": "SPAN_KIND_CLIENT",
            "status_code": 2,
            "status_code_name_raw": "STATUS_CODE_ERROR",
        }
    ]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"kind": 9}, {"kind": 9, "kind_name_raw": None, "status_code": 0}),
        (
            {"kind": "SPAN_KIND_BOGUS"},
            {"kind": None, "kind_name_raw": "SPAN_KIND_BOGUS", "status_code": 0},
        ),
        ({"status": {"code": 7}}, {"kind": 1, "kind_name_raw": None, "status_code": 7}),
        (
            {"status": {"code": "STATUS_CODE_MAYBE"}},
            {"kind": 1, "kind_name_raw": None, "status_code": None},
        ),
    ],
)
def test_unknown_enums_are_kept_raw(
    otlp: SimpleNamespace, fields: dict[str, Any], expected: dict[str, Any]
) -> None:
    got = decode(otlp.request(otlp.span(**fields)))
    assert codes(got) == {"W_UNKNOWN_ENUM": 1}
    raw = next(iter(fields.values()))
    raw = raw["code"] if isinstance(raw, dict) else raw
    assert str(raw) in issue(got, "W_UNKNOWN_ENUM").message
    assert rows(got, "spans", "kind", "kind_name_raw", "status_code") == [expected]


def test_missing_kind_and_status_default(otlp: SimpleNamespace) -> None:
    got = decode(otlp.request(otlp.span(kind=..., status=...)))
    assert rows(got, "spans", "kind", "status_code", "status_message") == [
        {"kind": 0, "status_code": 0, "status_message": None}
    ]


def _b64(hex_id: str, *, urlsafe: bool = False, pad: bool = True) -> str:
    raw = bytes.fromhex(hex_id)
    text = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()
    return text if pad else text.rstrip("=")


TRACE_B = "fbff7f0000000000000000000000003e"  # base64 of it uses + and / (or - and _)
SPAN_B = "fbff7f000000003e"


@pytest.mark.parametrize(
    ("trace_id", "span_id"),
    [
        (TRACE_B.upper(), SPAN_B.upper()),
        (_b64(TRACE_B), _b64(SPAN_B)),
        (_b64(TRACE_B, pad=False), _b64(SPAN_B, pad=False)),
        (_b64(TRACE_B, urlsafe=True), _b64(SPAN_B, urlsafe=True)),
        (_b64(TRACE_B, urlsafe=True, pad=False), _b64(SPAN_B, urlsafe=True, pad=False)),
    ],
    ids=["upper-hex", "base64", "base64-unpadded", "base64-urlsafe", "base64-urlsafe-unpadded"],
)
def test_id_encodings_decode_to_the_same_bytes(
    otlp: SimpleNamespace, trace_id: str, span_id: str
) -> None:
    got = decode(otlp.request(otlp.span(trace_id=trace_id, spanId=span_id)))
    assert rows(got, "spans", "trace_id", "span_id") == [
        {"trace_id": bytes.fromhex(TRACE_B), "span_id": bytes.fromhex(SPAN_B)}
    ]
    base64_ids = trace_id != TRACE_B.upper()
    assert codes(got) == ({"I_BASE64_IDS": 2} if base64_ids else {})
    assert got.encoding_flavor == ("proto3-generic" if base64_ids else "otlp-json")


def test_mixed_id_encodings_in_one_source(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(1), otlp.span(2, trace_id=_b64(otlp.TRACE_ID), spanId=_b64(f"{2:016x}"))
        )
    )
    assert codes(got) == {"I_BASE64_IDS": 2, "W_MIXED_ID_ENCODING": 1}
    assert got.encoding_flavor == "mixed"
    assert "hex and base64" in issue(got, "W_MIXED_ID_ENCODING").message
    assert {r["trace_id"] for r in rows(got, "spans", "trace_id")} == {bytes.fromhex(otlp.TRACE_ID)}


@pytest.mark.parametrize(
    ("field", "raw", "code", "fragment"),
    [
        ("spanId", "0x" + S, "E_BAD_ID_ENCODING", "0x-prefixed hex"),
        ("traceId", "0x" + T, "E_BAD_ID_ENCODING", "console-exporter"),
        ("spanId", "123e4567-e89b-12d3-a456-426614174000", "E_BAD_ID_ENCODING", "UUID"),
        ("spanId", "s01", "E_BAD_ID_ENCODING", "short label"),
        ("spanId", "abc", "E_BAD_ID_ENCODING", "3 hex characters"),
        ("traceId", T + "00", "E_BAD_ID_ENCODING", "34 hex characters"),
        ("spanId", "zzzzzzzzzzzzzzzz", "E_BAD_ID_ENCODING", "'zzzzzzzzzzzzzzzz'"),
        ("spanId", 12345, "E_BAD_ID_ENCODING", "got int"),
        ("traceId", "", "E_MISSING_ID", "missing"),
        ("spanId", None, "E_MISSING_ID", "missing"),
        ("spanId", ..., "E_MISSING_ID", "missing"),
        ("traceId", "0" * 32, "E_ZERO_ID", "all-zero"),
        ("spanId", "AAAAAAAAAAA=", "E_ZERO_ID", "all-zero"),
    ],
)
def test_bad_ids_quarantine_the_span_naming_the_look_alike(
    otlp: SimpleNamespace, field: str, raw: Any, code: str, fragment: str
) -> None:
    bad = otlp.span(2, **{field: raw})
    got = decode(otlp.request(otlp.span(1), bad))
    assert got.issue_counts()[code] == 1
    found = issue(got, code)
    assert fragment in found.message
    assert found.json_path == f"resourceSpans[0].scopeSpans[0].spans[1].{field}"
    assert found.hint
    assert rows(got, "spans", "span_id") == [{"span_id": bytes.fromhex(f"{1:016x}")}]
    (quarantined,) = rows(got, "quarantine", "json_path", "raw_json", "codes")
    assert quarantined["json_path"] == "resourceSpans[0].scopeSpans[0].spans[1]"
    assert json.loads(quarantined["raw_json"]) == bad
    assert quarantined["codes"] == [code]
    assert (got.accounting.spans_read, got.accounting.spans_quarantined) == (2, 1)
    assert (got.accounting.attributes_read, got.accounting.attributes_quarantined) == (3, 1)


@pytest.mark.parametrize("parent", ["0" * 16, "AAAAAAAAAAA="])
def test_zero_parent_is_a_root(otlp: SimpleNamespace, parent: str) -> None:
    got = decode(otlp.request(otlp.span(parentSpanId=parent)))
    assert got.issue_counts()["W_ZERO_PARENT"] == 1
    assert rows(got, "spans", "parent_span_id") == [{"parent_span_id": None}]


def test_bad_parent_id_keeps_the_span_as_a_root(otlp: SimpleNamespace) -> None:
    got = decode(otlp.request(otlp.span(parentSpanId="0xabc")))
    assert codes(got) == {"W_INVALID_VALUE": 1}
    assert "0x-prefixed" in issue(got, "W_INVALID_VALUE").message
    assert rows(got, "spans", "parent_span_id") == [{"parent_span_id": None}]


# ------------------------------------------------------------------ times, counts, containers
def test_negative_duration_kept_signed(otlp: SimpleNamespace) -> None:
    got = decode(otlp.request(otlp.span(startTimeUnixNano="2000", endTimeUnixNano="1500")))
    assert codes(got) == {"W_NEGATIVE_DURATION": 1}
    assert "500 ns before" in issue(got, "W_NEGATIVE_DURATION").message
    assert rows(got, "spans", "start_time_unix_nano", "end_time_unix_nano", "duration_ns") == [
        {"start_time_unix_nano": 2000, "end_time_unix_nano": 1500, "duration_ns": -500}
    ]


@pytest.mark.parametrize(
    "times",
    [
        {"startTimeUnixNano": ..., "endTimeUnixNano": ...},
        {"startTimeUnixNano": "0"},
        {"endTimeUnixNano": 0},
    ],
)
def test_missing_or_zero_times_are_null(otlp: SimpleNamespace, times: dict[str, Any]) -> None:
    got = decode(otlp.request(otlp.span(**times)))
    assert got.issue_counts()["W_MISSING_TIME"] == 1
    spans = got.tables["spans"]
    assert spans["duration_ns"].to_pylist() == [None]
    start, end = spans["start_time"].is_null()[0].as_py(), spans["end_time"].is_null()[0].as_py()
    assert (start, end) == (
        "startTimeUnixNano" in times,
        "endTimeUnixNano" in times,
    )


def test_dropped_counts_kept_as_columns(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(droppedAttributesCount=3, droppedEventsCount="2", droppedLinksCount=1)
        )
    )
    assert codes(got) == {"W_DROPPED_AT_SOURCE": 1}
    assert "(3/2/1)" in issue(got, "W_DROPPED_AT_SOURCE").message
    assert rows(
        got, "spans", "dropped_attributes_count", "dropped_events_count", "dropped_links_count"
    ) == [{"dropped_attributes_count": 3, "dropped_events_count": 2, "dropped_links_count": 1}]


def test_legacy_instrumentation_library_spans(otlp: SimpleNamespace) -> None:
    legacy = {
        "resourceSpans": [
            {
                "resource": {},
                "instrumentationLibrarySpans": [
                    {
                        "instrumentationLibrary": {"name": "old-lib", "version": "0.9"},
                        "spans": [otlp.span()],
                    }
                ],
            }
        ]
    }
    got = decode(legacy)
    assert codes(got) == {"W_LEGACY_IL_SPANS": 2}
    assert "instrumentationLibrary" in issue(got, "W_LEGACY_IL_SPANS").message
    assert got.span_count == 1
    assert rows(got, "scopes", "name", "version") == [{"name": "old-lib", "version": "0.9"}]
    assert rows(got, "spans", "json_path") == [
        {"json_path": "resourceSpans[0].instrumentationLibrarySpans[0].spans[0]"}
    ]


@pytest.mark.parametrize(
    ("wrap", "fragment"),
    [
        (lambda r: {"result": r}, "Jaeger api_v3"),
        (lambda r: {"batches": r["resourceSpans"]}, "Tempo"),
    ],
)
def test_known_envelopes_are_unwrapped(
    otlp: SimpleNamespace, wrap: Callable[[Any], Any], fragment: str
) -> None:
    got = decode(wrap(otlp.request(otlp.span(1), otlp.span(2))))
    assert codes(got) == {"W_ENVELOPE_UNWRAPPED": 1}
    assert fragment in issue(got, "W_ENVELOPE_UNWRAPPED").message
    assert got.span_count == 2


def test_array_of_requests_is_one_record_each(otlp: SimpleNamespace) -> None:
    got = decode(otlp.dumps([otlp.request(otlp.span(1)), otlp.request(otlp.span(2))]))
    assert (got.accounting.records_read, got.accounting.records_ingested, got.span_count) == (
        2,
        2,
        2,
    )


@pytest.mark.parametrize(
    ("request_", "count"),
    [
        ({"resourceSpans": []}, 1),
        ({"resourceSpans": None}, 1),
        ({"resourceSpans": [{"resource": {}}]}, 1),
        ({"resourceSpans": [{"scopeSpans": [{"scope": {}}, {"spans": []}]}]}, 2),
    ],
)
def test_empty_envelopes_are_counted(request_: dict[str, Any], count: int) -> None:
    got = decode(request_)
    assert codes(got) == {"I_EMPTY_ENVELOPE": count}
    assert got.status == "ok"
    assert got.span_count == 0


def test_null_fields_read_as_defaults(otlp: SimpleNamespace) -> None:
    got = decode(
        otlp.request(
            otlp.span(
                parentSpanId=None, events=None, links=None, attributes=None, status=None, kind=None
            )
        )
    )
    assert codes(got) == {}
    assert rows(got, "spans", "parent_span_id", "kind", "status_code") == [
        {"parent_span_id": None, "kind": 0, "status_code": 0}
    ]


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
