"""ingest/source/issue_log.py: an issue's value excerpt is at most 200 characters."""

from __future__ import annotations

from types import SimpleNamespace

from valuechain.ingest.decode import decode_export


def test_value_excerpt_is_at_most_200_characters(otlp: SimpleNamespace) -> None:
    out = decode_export(otlp.dumps(otlp.request(otlp.span(1, spanId="z" * 500))), "x.json")
    (issue,) = out.issues
    assert issue.value_excerpt is not None and len(issue.value_excerpt) == 200
    assert issue.value_excerpt.endswith("…")
