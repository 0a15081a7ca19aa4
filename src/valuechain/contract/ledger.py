"""What the store records of one accepted source: its row of the ``sources`` ledger.

The ingest stage decodes; the pipeline hands this record to the store, which adds what only
it can know (row counts after deduplication against everything stored). The counts are
those of the accounting invariant (TRACE-FORMAT §5.1).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceLedger:
    """One source as decoded: identity, framing and the decoder's side of the accounting."""

    sha256: str
    bytes_raw: int
    bytes_decoded: int
    compression: str  # none | gzip | zstd-native | zstd-legacy
    framing: str  # single | stream | length-prefixed
    encoding_flavor: str
    status: str  # ok | partial (a rejected source is never written)
    records_read: int
    records_ingested: int
    records_other_signal: int
    records_quarantined: int
    spans_read: int
    spans_quarantined: int
    attributes_read: int
    attributes_quarantined: int
