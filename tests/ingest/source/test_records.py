"""ingest/source/records.py: known API envelopes are unwrapped (TRACE-FORMAT §1.2) and an array of
requests is one record each.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from ingest_checks import codes, decode, issue


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
