"""A source none of whose records was imported says so, counted; never "the other records"."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from valuechain.contract.issues import HINTS, Code
from valuechain.ingest.decode import decode_export

BROKEN = b'{"resourceSpans": [ {"x": 1,, } ] }'
TOO_DEEP = b'{"resourceSpans":' + b"[" * 5000 + b"]" * 5000 + b"}"


@pytest.mark.parametrize(
    ("data", "name", "code", "hint"),
    [
        (BROKEN, "one.json", "E_INVALID_RECORD", "its only record was quarantined"),
        (BROKEN + b"\n" + BROKEN + b"\n", "two.jsonl", "E_INVALID_RECORD", "all 2 of its records"),
        (TOO_DEEP, "deep.json", "E_RECORD_TOO_DEEP", "its only record was quarantined"),
    ],
    ids=["single-document", "two-lines", "single-too-deep"],
)
def test_a_source_with_nothing_imported_says_so(
    data: bytes, name: str, code: str, hint: str
) -> None:
    out = decode_export(data, name)
    assert out.accounting.records_ingested == 0
    assert out.rejection is not None and out.rejection.code == code
    assert out.rejection.hint is not None
    assert out.rejection.hint.startswith("nothing was imported: ")
    assert hint in out.rejection.hint
    assert "other records" not in str(out.rejection)


def test_a_partial_source_keeps_the_codes_hint(otlp: SimpleNamespace) -> None:
    good = otlp.dumps(otlp.request(otlp.span(1)))
    out = decode_export(good + b"\n" + BROKEN + b"\n", "partial.jsonl")
    assert (out.status, out.accounting.records_ingested) == ("partial", 1)
    (issue,) = [i for i in out.issues if i.code is Code.E_INVALID_RECORD]
    assert issue.hint == HINTS[Code.E_INVALID_RECORD]
