"""ingest/otlp/json.py, the reference decoder: durations, dropped counts, legacy
instrumentationLibrary spans, empty envelopes and nulls (TRACE-FORMAT §1.3–§1.7); neither the id
encoding nor the key spelling changes the data.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ingest_checks import check_decoded, codes, decode, issue, plain_rows, rows
from ingest_strategies import FAST, encode, requests

from valuechain.ingest.decode import decode_export


def test_negative_duration_kept_signed(otlp: SimpleNamespace) -> None:
    got = decode(otlp.request(otlp.span(startTimeUnixNano="2000", endTimeUnixNano="1500")))
    assert codes(got) == {"W_NEGATIVE_DURATION": 1}
    assert "500 ns before" in issue(got, "W_NEGATIVE_DURATION").message
    assert rows(got, "spans", "start_time_unix_nano", "end_time_unix_nano", "duration_ns") == [
        {"start_time_unix_nano": 2000, "end_time_unix_nano": 1500, "duration_ns": -500}
    ]


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


@FAST
@given(request=requests(), how=st.sampled_from(["HEX", "b64", "b64url"]), snake=st.booleans())
def test_id_encoding_and_key_spelling_do_not_change_the_data(
    request: dict[str, Any], how: str, snake: bool
) -> None:
    canonical = decode_export(encode(request, "hex"), "a.json")
    variant = decode_export(encode(request, how, snake), "b.json")
    check_decoded(canonical)
    check_decoded(variant)
    for name in ("spans", "attributes", "events", "links", "resources", "scopes"):
        # json_path names the keys as written, so it differs with the spelling by design
        left = plain_rows(canonical.tables[name], "json_path")
        assert left == plain_rows(variant.tables[name], "json_path"), name
    assert canonical.tables["spans"]["content_hash"] == variant.tables["spans"]["content_hash"]
