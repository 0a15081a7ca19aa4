"""What the store records of one accepted source: its row of the ``sources`` ledger.

The ingest stage decodes and counts; the pipeline hands this record to the store, which adds
what only it can know (the rows it kept after deduplicating against everything stored). The
counts are those of the accounting invariant (TRACE-FORMAT §5.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Accounting:
    """The decoder's side of the accounting invariant (TRACE-FORMAT §5.1).

    Deduplication against earlier imports is the store's side: its ledger row adds
    ``spans_deduplicated`` and ``attributes_deduplicated`` to the same sums.
    """

    records_read: int = 0
    records_ingested: int = 0
    records_other_signal: int = 0
    records_quarantined: int = 0
    spans_read: int = 0
    spans_quarantined: int = 0
    attributes_read: int = 0
    attributes_quarantined: int = 0

    def check(self, span_rows: int, attribute_rows: int) -> list[str]:
        """The invariant's violations for a decoded source (empty when it holds)."""
        problems = []
        if self.records_read != (
            self.records_ingested + self.records_other_signal + self.records_quarantined
        ):
            problems.append("records")
        if self.spans_read != span_rows + self.spans_quarantined:
            problems.append("spans")
        if self.attributes_read != attribute_rows + self.attributes_quarantined:
            problems.append("attributes")
        return problems


@dataclass(frozen=True, slots=True)
class SourceLedger:
    """One source as decoded: identity, framing and the decoder's accounting."""

    sha256: str
    bytes_raw: int
    bytes_decoded: int
    compression: str  # none | gzip | zstd-native | zstd-legacy
    framing: str  # single | stream | length-prefixed
    encoding_flavor: str
    status: str  # ok | partial (a rejected source is never written)
    accounting: Accounting = field(default_factory=Accounting)
