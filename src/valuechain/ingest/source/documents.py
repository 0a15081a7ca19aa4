"""Small single-document sources decoded together: one set of columns, one Arrow build a group.

A small file is one ``Whole`` part, and a canonical OTLP/JSON document in it is taken by the
msgspec fast path (``parts.took_single_document``) or not at all. Decoding each such file as a
source of its own cost ~2 ms of set-up beyond its decoding — the part decoder, its nine
Arrow tables built and conformed, the merger's rebase and trace-id scan — which a folder of
tiny files paid a file at a time. ``DocumentGroup`` decodes them into the columns of one
``SpanDecoder``, each file's rows following the one's before (row ids count from the group's
first row; every file's record index is 0, as it is alone), and builds the tables once.

A file is taken only where its own decode would go the fast path: plain (no compression, no
BOM-less junk before the ``{``), valid UTF-8, not MCPJam SDK results, one canonical document —
which by the fast path's rule is one the reference decoder would note nothing about. Its
``DecodedSource`` is the one its own decode gives (tested side by side): one record read and
ingested, ``single``, ``otlp-json``, no issue. Any other file is decoded on its own
(``SourceStream``), as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from valuechain.contract.ledger import Accounting
from valuechain.ingest.bytes import json_values
from valuechain.ingest.mcpjam import SNIFF_BYTES, looks_like_sdk
from valuechain.ingest.otlp.fast import FastDecoder
from valuechain.ingest.otlp.json import SpanDecoder
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.issue_log import IssueLog, Where
from valuechain.ingest.source.merge import ROW_TABLES

# every table of the decoder's columns (`SpanDecoder.cols`): a taken file's rows in each
_COUNTED = (*ROW_TABLES, "attributes", "quarantine", "unknown_fields")


@dataclass(frozen=True, slots=True)
class Taken:
    """One file the group decoded: its source, and where its rows are in the group's tables."""

    decoded: DecodedSource
    first: dict[str, int]  # the group's rows before it, per table
    rows: dict[str, int]  # its own rows, per table


class DocumentGroup:
    """The canonical single documents of a group of small files, decoded into one set of
    columns; `take` them in order, then build the ``tables`` once."""

    def __init__(self, options: DecodeOptions) -> None:
        self.options = options
        self.spans = SpanDecoder(IssueLog(), large_value_threshold=options.large_value_threshold)
        self.fast = FastDecoder(self.spans)
        self.taken: list[Taken] = []
        # each table's first column (extended in place): its length is the table's rows
        cols = self.spans.cols
        self._first_columns = [(name, next(iter(cols[name].values()))) for name in _COUNTED]

    def take(self, source: str, data: bytes, sha256: str) -> Taken | None:
        """``data`` (the whole file, hashed as ``sha256``) decoded into the group, as its own
        decode would decode it; None, having written nothing: decode it on its own."""
        if not self.options.fast or (not data.isascii() and not _utf8(data)):
            return None
        if data.lstrip(json_values.BOM).lstrip()[:1] != b"{" or looks_like_sdk(data[:SNIFF_BYTES]):
            return None
        body, line, offset = json_values.first_value(data)
        spans = self.spans
        before = self._sizes()
        spans_read, attributes_read = spans.spans_read, spans.attributes_read
        if not self.fast.decode(body, Where(0, line, offset)):
            return None
        after = self._sizes()
        accounting = Accounting(
            records_read=1,
            records_ingested=1,
            spans_read=spans.spans_read - spans_read,
            attributes_read=spans.attributes_read - attributes_read,
        )
        decoded = DecodedSource(
            source,
            sha256,
            len(data),
            bytes_decoded=len(data),
            accounting=accounting,
            fast_records=1,
        )
        taken = Taken(decoded, before, {name: after[name] - before[name] for name in _COUNTED})
        self.taken.append(taken)
        return taken

    def tables(self) -> dict[str, pa.Table]:
        """The rows of every file taken, one after the other (built once)."""
        return self.spans.tables()

    def _sizes(self) -> dict[str, int]:
        return {name: len(column) for name, column in self._first_columns}


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
