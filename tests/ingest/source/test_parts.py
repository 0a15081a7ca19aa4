"""ingest/source/parts.py: invalid UTF-8 bytes in a part are replaced and reported at their offset
(TRACE-FORMAT §5.2 ``W_INVALID_UTF8``).
"""

from __future__ import annotations

from types import SimpleNamespace

from ingest_checks import codes, decode, issue, rows


def test_invalid_utf8_bytes(otlp: SimpleNamespace) -> None:
    data = otlp.dumps(otlp.request(otlp.span(name="nXm"))).replace(b"X", b"\xff")
    got = decode(data)
    assert codes(got) == {"W_INVALID_UTF8": 1}
    assert issue(got, "W_INVALID_UTF8").byte_offset == data.index(b"\xff")
    assert rows(got, "spans", "name") == [{"name": "n\ufffdm"}]
