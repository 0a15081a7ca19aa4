"""ingest/otlp/ids.py: hex and base64 ids decode to the same bytes (TRACE-FORMAT §1.4); a bad id
quarantines its span with a message naming what it looks like; a bad parent keeps a root.
"""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace
from typing import Any

import pytest
from ingest_checks import codes, decode, issue, rows

T = "5b8efff798038103d269b633813fc60c"


S = "eee19b7ec3c1b174"


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
