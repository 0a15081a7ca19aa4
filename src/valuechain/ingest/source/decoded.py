"""What decoding one source takes and yields: its options, its accounting, the decoded source.

``DecodeOptions`` are the knobs of one decode (salvage, caps, batch size, fast path, workers);
``Accounting`` holds the counts of the accounting invariant (TRACE-FORMAT §5.1); a
``DecodedSource`` is everything one source yields, as the store and the pipeline read it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pyarrow as pa

from valuechain.contract.issues import Issue
from valuechain.contract.ledger import Accounting, SourceLedger
from valuechain.errors import IngestError
from valuechain.ingest.bytes import compression, framing
from valuechain.ingest.otlp.fields import DEFAULT_LARGE_VALUE_THRESHOLD


@dataclass(frozen=True, slots=True)
class DecodeOptions:
    salvage: bool = False
    large_value_threshold: int = DEFAULT_LARGE_VALUE_THRESHOLD
    max_decompressed_bytes: int = compression.DEFAULT_MAX_DECOMPRESSED
    # NDJSON and length-prefixed sources are read and decoded in parts of about this size
    batch_bytes: int = framing.DEFAULT_BATCH_BYTES
    # canonical NDJSON records take the msgspec fast path (``fast.py``); False: reference only
    fast: bool = True
    # the native path (``native.py``) takes every NDJSON part and document first; what it
    # refuses goes to the msgspec fast path, then the reference. ``native_parts=False`` keeps it
    # to sources of several records smaller than a part (else read by the reference decoder):
    # the msgspec path then takes the parts, at ~1.3x the native path's CPU and wall time on two
    # cores (``python -m bench ingest``)
    native: bool = True
    native_parts: bool = True
    # workers decoding the parts of a large source (and threads decoding a large single
    # document, a run of its resourceSpans each). 0 (the library default) decodes in this
    # process; the CLI uses 2. Worker processes never run the caller's script again
    # (`pipeline.worker_context`), so it needs no ``if __name__ == "__main__":`` guard.
    workers: int = 0
    # the workers are threads while the native path decodes the parts (Arrow parses and
    # computes with the GIL released: both cores, no pickled batches, no fork server);
    # processes otherwise, or when asked (the msgspec and reference decoders hold the GIL)
    worker_processes: bool = False


@dataclass(slots=True)
class DecodedSource:
    """Everything one source yields; tables hold batch-local row ids."""

    source: str
    sha256: str
    bytes_raw: int
    bytes_decoded: int = 0
    compression: str = "none"  # none | gzip | zstd-native | zstd-legacy
    framing: str = "single"  # single | stream | length-prefixed
    encoding_flavor: str = "otlp-json"
    status: str = "ok"  # ok | partial | rejected
    accounting: Accounting = field(default_factory=Accounting)
    tables: dict[str, pa.Table] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    rejection: IngestError | None = None
    native_records: int = 0  # records decoded by the native path (``otlp/native.py``)
    fast_records: int = 0  # by the msgspec fast path; the others by the reference decoder

    def ledger(self) -> SourceLedger:
        """What the store records of this source (its ``sources`` ledger row)."""
        return SourceLedger(
            sha256=self.sha256,
            bytes_raw=self.bytes_raw,
            bytes_decoded=self.bytes_decoded,
            compression=self.compression,
            framing=self.framing,
            encoding_flavor=self.encoding_flavor,
            status=self.status,
            accounting=self.accounting,
        )

    @property
    def span_count(self) -> int:
        return self.tables["spans"].num_rows if "spans" in self.tables else 0

    def issue_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for issue in self.issues:
            counts[issue.code.value] += issue.occurrences
        return counts
