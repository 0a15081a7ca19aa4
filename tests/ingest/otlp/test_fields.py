"""ingest/otlp/fields.py: attribute rows (duplicate keys kept in order, large values moved to
``large_values``) and the time fields of the reference decoder (TRACE-FORMAT §1.5, §1.6).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from ingest_checks import codes, decode, issue, rows

from valuechain.ingest.decode import DecodeOptions
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database


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
