"""Defects the fuzz tests and the bad-input corpus found, each pinned by the smallest input that
showed it (the corpus files of `fixtures/bad/` pin the others through `test_bad_corpus.py`)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from ingest_checks import check_decoded

from valuechain.ingest.decode import DecodeOptions, decode_export


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"stringValue": "bottom"}
    for _ in range(depth):
        value = {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
    return value


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("where", ["span", "event", "resource"])
def test_a_wrong_typed_value_nested_past_the_cap_is_quarantined_too_deep(
    where: str, fast: bool, otlp: SimpleNamespace
) -> None:
    """A ``stringValue`` holding an object nested 100 deep raised orjson's TypeError
    ("Recursion limit reached") and aborted the whole source: now its attribute is
    quarantined with E_TOO_DEEP, like any nesting past the cap."""
    attribute = {"key": "k", "value": {"stringValue": _nested(100)}}
    if where == "span":
        request = otlp.request(otlp.span(1, attributes=[attribute]))
    elif where == "event":
        request = otlp.request(otlp.span(1, events=[{"name": "e", "attributes": [attribute]}]))
    else:
        request = otlp.request(otlp.span(1), resource={"attributes": [attribute]})
    line = json.dumps(request).encode() + b"\n"  # orjson writes no such depth
    decoded = decode_export(line * 2, "deep.jsonl", DecodeOptions(fast=fast))
    check_decoded(decoded)
    assert decoded.status == "ok"
    assert decoded.issue_counts()["E_TOO_DEEP"] >= 1
    assert decoded.accounting.attributes_quarantined >= 1


@pytest.mark.parametrize(
    ("data", "decoded_bytes"),
    [
        # one length-prefixed record holding a zstd frame smaller than its own compressed bytes
        (b"\x00\x00\x00\x16(\xb5/\xfd \ri\x00\x00\n\x0b\n\x00\x12\x07\n\x05\n\x03lib", 17),
        (b'{"resourceSpans":[]}', 20),  # uncompressed: every byte of the file is decoded
    ],
)
def test_decoded_bytes_count_the_uncompressed_file_and_never_go_negative(
    data: bytes, decoded_bytes: int
) -> None:
    """An uncompressed source recorded 0 decoded bytes, so a zstd record that shrank on
    decompression made the count negative (-9) and the ledger insert failed on UBIGINT: the
    decoded size is the file's own bytes plus what its zstd records add or remove."""
    decoded = decode_export(data, "small.pb")
    assert decoded.bytes_decoded == decoded_bytes
    assert decoded.ledger().bytes_decoded == decoded_bytes
