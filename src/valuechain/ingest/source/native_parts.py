"""Parts through the native path (``otlp/native.py``), with what it refuses decoded as before.

A part of NDJSON lines is cut into runs: lines that may be canonical (an object on one line
without a ``null`` token) are parsed together by Arrow's reader; a run that does not parse is
halved until the lines that fail are alone; the records ``native.decode`` refuses are taken
out. Every other line goes, in order and with its own place in the source, through
``PartDecoder`` without the native path — the msgspec fast path and the reference decoder, as
before. The runs' results are folded into one ``PartResult`` exactly as ``SourceMerger`` folds
parts, so the part reads as if one decoder had read it.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.ledger import Accounting
from valuechain.contract.tables.rows import rebase
from valuechain.ingest.bytes import framing, items
from valuechain.ingest.otlp import native
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.ingest.source.merge import ROW_TABLES
from valuechain.ingest.source.records import PartResult

# JSON null (Arrow reads it as absent; the reference may not). Bare NaN/Infinity, which the
# reference notes (W_NONSTANDARD_JSON), need no scan: Arrow reads them only as doubles (in any
# other column they fail the parse), and ``native.decode`` refuses every non-finite double.
NULL: Final = b"null"
_SPACE: Final = frozenset(b" \t\r\n")
_BEFORE_VALUE: Final = frozenset(b":,[")
_AFTER_VALUE: Final = frozenset(b",}]")
MAX_PARSES: Final = 64  # parse attempts per part before the rest of it goes the old way
Fallback = Callable[[framing.Part], PartResult]


def null_tokens(data: bytes) -> Iterator[int]:
    """Where ``data`` may hold a JSON null: the word after a ``:``, ``,`` or ``[`` and before a
    ``,``, ``}``, ``]`` or the end (spaces aside), as every null value is. The word inside a
    string is not one (``"call_ab9nullZ"``, ``"name":"null"``), unless it looks like one there
    too (``": null,"``), which only costs the native path that record."""
    at = data.find(NULL)
    while at >= 0:
        before, after = at - 1, at + len(NULL)
        while before >= 0 and data[before] in _SPACE:
            before -= 1
        while after < len(data) and data[after] in _SPACE:
            after += 1
        if (before < 0 or data[before] in _BEFORE_VALUE) and (
            after == len(data) or data[after] in _AFTER_VALUE
        ):
            yield at
        at = data.find(NULL, at + len(NULL))


def has_null(data: bytes) -> bool:
    return next(null_tokens(data), None) is not None


def valid_utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def document(table: pa.Table, options: DecodeOptions) -> native.Decoded | set[int]:
    """One parsed document decoded by ``options.workers`` threads (Arrow's kernels release the
    GIL), each a contiguous run of its ``resourceSpans`` items of about the same number of
    spans, joined as one decode of the whole gives them: a large single-document export uses
    both cores where NDJSON lines are cut into parts. Anything one run refuses refuses it."""
    requests = table.column("resourceSpans").combine_chunks()
    runs = _resource_runs(requests, max(1, options.workers))
    if len(runs) == 1:
        return native.decode(table, options.large_value_threshold)
    items = pc.list_flatten(requests)

    def decoded(run: tuple[int, int]) -> native.Decoded | set[int]:
        first, end = run
        offsets = pa.array([0, end - first], pa.int32())
        lists = pa.ListArray.from_arrays(offsets, items.slice(first, end - first))
        one = pa.Table.from_arrays([lists.cast(requests.type)], schema=table.schema)
        return native.decode(one, options.large_value_threshold, first_resource=first)

    with ThreadPoolExecutor(len(runs), thread_name_prefix="document") as pool:
        results = list(pool.map(decoded, runs))
    done: list[native.Decoded] = []
    for result in results:
        if not isinstance(result, native.Decoded):
            return result
        done.append(result)
    rows = dict.fromkeys(ROW_TABLES, 0)
    joined: list[dict[str, pa.Table]] = []
    for result in done:  # row ids continue, as the decode of the whole numbers them
        joined.append(rebase(result.tables, rows, 0))
        for name in ROW_TABLES:
            rows[name] += result.tables[name].num_rows
    return native.Decoded(
        {name: pa.concat_tables([t[name] for t in joined]) for name in joined[0]},
        sum(r.spans for r in done),
        sum(r.attributes for r in done),
    )


def document_items(part: framing.Items, options: DecodeOptions) -> PartResult:
    """A run of a document's spans and items cut by the framer, reopened where it starts and
    closed where it ends, decoded as the whole document's decode gives it (its record, its
    place in the lists) — or ``refused``: it does not parse, does not hold as many items,
    scopes and spans as its bytes have keys, or the native path refuses it; the source is then
    read again, in runs of whole items when only a schema URL stood in the way, else whole."""
    data = part.data
    closing = items.INSIDE if part.inside else b""
    text = b"".join((items.OPEN, part.head, data, closing, items.CLOSE))
    table = None
    if valid_utf8(data) and not has_null(text):
        table = native.parse(text, document=True)
    if table is not None and table.num_rows == 1 and _holds_what_it_says(table, text):
        if part.head and _schema_url_after(table):
            return PartResult({}, [], Accounting(), set(), refused=True, again=items.ITEMS)
        continued = (part.first_scope, part.first_span) if part.head else None
        decoded = native.decode(
            table, options.large_value_threshold, part.first_item, continued=continued
        )
        if isinstance(decoded, native.Decoded):  # the document, one record, ends here
            return native_result(decoded, 1 if part.final else 0)
    return PartResult({}, [], Accounting(), set(), refused=True)


def _schema_url_after(table: pa.Table) -> bool:
    """Whether the item or scope a run goes on in has a schema URL: it may follow the list an
    earlier run closed, whose rows were written without it — only whole items can be read."""
    item = pc.list_flatten(table.column("resourceSpans").combine_chunks())
    scope = pc.list_flatten(pc.struct_field(item, "scopeSpans"))
    return any(pc.struct_field(level, "schemaUrl")[0].is_valid for level in (item, scope))


def _holds_what_it_says(table: pa.Table, text: bytes) -> bool:
    """Whether the parsed items, scopes and spans are as many as ``text`` has keys of each,
    counted as the framer counts them (so the indexes it kept are exact)."""
    resource_spans = table.column("resourceSpans").combine_chunks()
    found = [pc.list_value_length(resource_spans)[0].as_py() or 0]
    level = pc.list_flatten(resource_spans)
    for name in ("scopeSpans", "spans"):
        lists = pc.struct_field(level, name)
        found.append(pc.sum(pc.list_value_length(lists)).as_py() or 0)
        level = pc.list_flatten(lists)
    keys = [items.count_keys(text, k) for k in (items.ITEM_KEY, items.SCOPE_KEY, items.SPAN_KEY)]
    return found == keys


def _resource_runs(requests: pa.Array, workers: int) -> list[tuple[int, int]]:
    """[first, end) item ranges of the one document's ``resourceSpans`` list (``requests``),
    at most ``workers`` of them, cut where the running count of spans crosses each share."""
    count = pc.list_value_length(requests)[0].as_py() or 0
    if workers < 2 or count < 2:
        return [(0, count)]
    scopes = pc.struct_field(pc.list_flatten(requests), "scopeSpans")
    spans = pc.list_value_length(pc.struct_field(pc.list_flatten(scopes), "spans"))
    weight = [0] * count  # spans per item (items and their scopes are few: Python will do)
    for item, n in zip(
        pc.list_parent_indices(scopes).to_pylist(), pc.fill_null(spans, 0).to_pylist(), strict=True
    ):
        weight[item] += n
    share, running = sum(weight) / workers, 0
    cuts: list[int] = []
    for item, n in enumerate(weight[:-1]):
        running += n
        if running >= share * (len(cuts) + 1) and len(cuts) < workers - 1:
            cuts.append(item + 1)
    bounds = [0, *cuts, count]
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def native_result(decoded: native.Decoded, records: int) -> PartResult:
    acct = Accounting()
    acct.records_read = acct.records_ingested = records
    acct.spans_read = decoded.spans
    acct.attributes_read = decoded.attributes
    return PartResult(
        decoded.tables,
        [],
        acct,
        {"hex"} if decoded.spans else set(),
        items=records,
        json_records=records,
        native_records=records,
    )


class LineRuns:
    """Decodes one part of NDJSON lines: native runs and fallback runs, folded in order."""

    def __init__(self, part: framing.Lines, options: DecodeOptions, fallback: Fallback) -> None:
        self.part = part
        self.options = options
        self.fallback = fallback
        self.parses = 0
        data = part.data
        self.bounds: list[tuple[int, int]] = []
        offset, end = 0, len(data)
        while offset < end:
            nl = data.find(b"\n", offset)
            stop = end if nl < 0 else nl
            self.bounds.append((offset, stop))
            offset = stop + 1
        self.starts = [b for b, _ in self.bounds]

    def run(self) -> PartResult:
        data, bounds = self.part.data, self.bounds
        eligible = [
            stop > begin
            and data[begin] == 0x7B
            and data[stop - 1 - (data[stop - 1] == 0x0D)] == 0x7D
            for begin, stop in bounds
        ]
        for at in null_tokens(data):  # a null (or what looks like one in a string): not native
            eligible[bisect_right(self.starts, at) - 1] = False
        segments: list[PartResult] = []
        i, n = 0, len(bounds)
        while i < n:
            j = i + 1
            while j < n and eligible[j] == eligible[i]:
                j += 1
            if eligible[i]:
                self._native(i, j, segments)
            else:
                segments.append(self._fallback(i, j))
            i = j
        return fold(segments)

    def _bytes(self, i: int, j: int) -> bytes:
        return self.part.data[self.bounds[i][0] : self.bounds[j - 1][1]]

    def _native(self, i: int, j: int, out: list[PartResult]) -> None:
        table = None
        if self.parses < MAX_PARSES:
            self.parses += 1
            table = native.parse(self._bytes(i, j))
        if table is None or table.num_rows != j - i:
            if j - i == 1 or self.parses >= MAX_PARSES:
                out.append(self._fallback(i, j))
                return
            middle = (i + j) // 2
            self._native(i, middle, out)
            self._native(middle, j, out)
            return
        self._decoded(table, i, j, out)

    def _decoded(self, table: pa.Table, i: int, j: int, out: list[PartResult]) -> None:
        result = native.decode(table, self.options.large_value_threshold)
        if isinstance(result, native.Decoded):
            out.append(native_result(result, j - i))
            return
        refused = sorted(result)
        at = 0
        for k in [*refused, j - i]:
            if k > at:  # the accepted records between two refused ones
                again = native.decode(table.slice(at, k - at), self.options.large_value_threshold)
                if isinstance(again, native.Decoded):
                    out.append(native_result(again, k - at))
                else:
                    out.append(self._fallback(i + at, i + k))
            if k < j - i:
                out.append(self._fallback(i + k, i + k + 1))
            at = k + 1

    def _fallback(self, i: int, j: int) -> PartResult:
        part, bounds = self.part, self.bounds
        begin = bounds[i][0]
        end = min(bounds[j - 1][1] + 1, len(part.data))
        final = part.final and j == len(bounds)
        lines = framing.Lines(part.data[begin:end], part.start + begin, part.first_line + i, final)
        return self.fallback(lines)


def fold(segments: list[PartResult]) -> PartResult:
    """Consecutive results of one part as one result (row ids and record indexes continue)."""
    if len(segments) == 1:
        return segments[0]
    rows = dict.fromkeys(ROW_TABLES, 0)
    records = 0
    parts_tables: list[dict[str, pa.Table]] = []
    out = PartResult({}, [], Accounting(), set())
    acct = out.accounting
    for seg in segments:
        parts_tables.append(rebase(seg.tables, rows, records))
        for issue in seg.issues:
            if issue.record_index is not None:
                issue.record_index += records
            if issue.span_row is not None:
                issue.span_row += rows["spans"]
            out.issues.append(issue)
        for name in ROW_TABLES:
            rows[name] += seg.tables[name].num_rows
        records += seg.accounting.records_read
        for name in Accounting.__dataclass_fields__:
            setattr(acct, name, getattr(acct, name) + getattr(seg.accounting, name))
        out.id_encodings |= seg.id_encodings
        out.not_otlp = out.not_otlp or seg.not_otlp
        if out.invalid_utf8_at is None:
            out.invalid_utf8_at = seg.invalid_utf8_at
        for name in (
            "items",
            "extra_decoded",
            "zstd_records",
            "proto_records",
            "json_records",
            "fast_records",
            "native_records",
        ):
            setattr(out, name, getattr(out, name) + getattr(seg, name))
        out.framing = seg.framing or out.framing
        out.rejection = out.rejection or seg.rejection
        out.partial = out.partial or seg.partial
    names = parts_tables[0].keys() if parts_tables else ()
    out.tables = {name: pa.concat_tables([t[name] for t in parts_tables]) for name in names}
    return out
