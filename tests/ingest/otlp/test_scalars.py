"""ingest/otlp/scalars.py: 64-bit ints written as numbers, enums by name or unknown, defaults,
and lone surrogates scrubbed to U+FFFD (TRACE-FORMAT §1.6, §5.2 ``W_INVALID_UTF8``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from ingest_checks import codes, decode, issue, rows


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
