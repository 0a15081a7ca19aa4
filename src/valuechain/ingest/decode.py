"""One export's bytes → span tables, issues and accounting (pure; TRACE-FORMAT §1.8, §5).

``decode_export`` is the library entry point behind ``valuechain.decode``: it takes bytes (or an
already-parsed request) and a source name, and returns a ``DecodedSource``. It never touches
the store or the file system. A source that cannot be imported at all comes back with
``status == "rejected"`` and a ``rejection`` error that names the place and the fix.
"""

from __future__ import annotations

import base64
import gc
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract import tables
from valuechain.errors import IngestError
from valuechain.ingest import fast as fastpath
from valuechain.ingest import framing, otlp_proto, sniff
from valuechain.ingest.issues import AGGREGATED, HINTS, Code, Issue, IssueLog, Where
from valuechain.ingest.otlp_json import DEFAULT_LARGE_VALUE_THRESHOLD, SpanDecoder, raw_json
from valuechain.ingest.recognise import describe_non_otlp, describe_text
from valuechain.ingest.salvage import salvage as salvage_text
from valuechain.ingest.scalars import scrub_surrogates
from valuechain.ingest.unpack import Unpacker, zstd_decompressor

OTHER_SIGNALS = (
    "resourceMetrics",
    "resourceLogs",
    "resourceProfiles",
    "resource_metrics",
    "resource_logs",
    "resource_profiles",
)


@dataclass(frozen=True, slots=True)
class DecodeOptions:
    salvage: bool = False
    large_value_threshold: int = DEFAULT_LARGE_VALUE_THRESHOLD
    max_decompressed_bytes: int = sniff.DEFAULT_MAX_DECOMPRESSED
    # NDJSON and length-prefixed sources are read and decoded in parts of about this size
    batch_bytes: int = framing.DEFAULT_BATCH_BYTES
    # canonical NDJSON records take the msgspec fast path (``fast.py``); False: reference only
    fast: bool = True
    # worker processes decoding the parts of a large source. 0 (the library default) decodes
    # in this process; the CLI uses 2. Workers re-import the caller's main module, so a script
    # that asks for them must guard its entry point (``if __name__ == "__main__":``).
    workers: int = 0


@dataclass(slots=True)
class Accounting:
    """The counts of the accounting invariant (TRACE-FORMAT §5.1)."""

    records_read: int = 0
    records_ingested: int = 0
    records_other_signal: int = 0
    records_quarantined: int = 0
    spans_read: int = 0
    spans_quarantined: int = 0
    spans_deduplicated: int = 0  # filled in by the store, which sees earlier imports
    attributes_read: int = 0
    attributes_quarantined: int = 0
    attributes_deduplicated: int = 0  # attributes of deduplicated spans (store)

    def check(self, span_rows: int, attribute_rows: int) -> list[str]:
        """The invariant's violations (empty when it holds)."""
        problems = []
        if self.records_read != (
            self.records_ingested + self.records_other_signal + self.records_quarantined
        ):
            problems.append("records")
        if self.spans_read != span_rows + self.spans_quarantined + self.spans_deduplicated:
            problems.append("spans")
        if self.attributes_read != (
            attribute_rows + self.attributes_quarantined + self.attributes_deduplicated
        ):
            problems.append("attributes")
        return problems


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

    @property
    def span_count(self) -> int:
        return self.tables["spans"].num_rows if "spans" in self.tables else 0

    def issue_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for issue in self.issues:
            counts[issue.code.value] += issue.occurrences
        return counts


def decode_export(
    data: bytes | dict[str, Any], source: str = "<memory>", options: DecodeOptions | None = None
) -> DecodedSource:
    """Decode one export (bytes of a file, or one parsed request) into span tables."""
    options = options or DecodeOptions()
    if isinstance(data, dict):
        value = sniff.Value(data, 1, 0)
        try:
            orjson.dumps(data)
        except TypeError:  # e.g. lone surrogates in a caller-built dict (§5.2 W_INVALID_UTF8)
            value.obj, value.invalid_utf8 = scrub_surrogates(data)
        part = PartDecoder(options)
        part.run_values([value])
        merger = SourceMerger(source, hashlib.sha256(b"").hexdigest(), 0, options, keep=True)
        merger.add(part.result())
        return merger.finish()
    stream = SourceStream([data], source, hashlib.sha256(data).hexdigest(), len(data), options)
    stream.keep = True
    for _ in stream:
        pass
    return stream.result


# ---------------------------------------------------------------------------- parts
@dataclass(slots=True)
class Rejection:
    code: Code
    pointer: str | None
    problem: str
    hint: str | None = None
    log: bool = True


@dataclass(slots=True)
class PartResult:
    """What decoding one part yields; row ids and record indexes are part-local."""

    tables: dict[str, pa.Table]
    issues: list[Issue]
    accounting: Accounting
    id_encodings: set[str]
    not_otlp: str | None = None
    invalid_utf8_at: int | None = None  # first invalid UTF-8 byte (source offset)
    items: int = 0  # values and broken stretches (framing single vs stream)
    extra_decoded: int = 0  # bytes added by decompressing length-prefixed zstd records
    zstd_records: int = 0
    proto_records: int = 0
    json_records: int = 0
    fast_records: int = 0
    framing: str | None = None  # set by a whole part that found its own framing
    rejection: Rejection | None = None
    partial: bool = False  # salvaged: the source is partial even with nothing quarantined


class PartDecoder:
    """Decodes one part (or a whole source) with a fresh issue log and batch-local row ids."""

    def __init__(self, options: DecodeOptions) -> None:
        self.options = options
        self.log = IssueLog()
        self.acct = Accounting()
        self.spans = SpanDecoder(self.log, large_value_threshold=options.large_value_threshold)
        self.fast = fastpath.FastDecoder(self.spans) if options.fast else None
        self.not_otlp: list[str] = []
        self.items = 0
        self.invalid_utf8_at: int | None = None
        self.extra_decoded = 0
        self.zstd_records = self.proto_records = self.json_records = 0
        self.framing: str | None = None
        self.rejection: Rejection | None = None
        self.partial = False

    def result(self) -> PartResult:
        acct = self.acct
        acct.spans_read = self.spans.spans_read
        acct.spans_quarantined = self.spans.spans_quarantined
        acct.attributes_read = self.spans.attributes_read
        acct.attributes_quarantined = self.spans.attributes_quarantined
        return PartResult(
            self.spans.tables(),
            self.log.issues,
            acct,
            self.spans.id_encodings,
            self.not_otlp[0] if self.not_otlp else None,
            self.invalid_utf8_at,
            self.items,
            self.extra_decoded,
            self.zstd_records,
            self.proto_records,
            self.json_records,
            self.fast.records if self.fast else 0,
            self.framing,
            self.rejection,
            self.partial,
        )

    # ------------------------------------------------------------------ parts
    def run_part(self, part: framing.Part) -> PartResult:
        if isinstance(part, framing.Lines):
            self._check_utf8(part.data, part.start)
            self._lines(part)
        elif isinstance(part, framing.Records):
            self._records(part.data, part.start, part.final)
        else:
            self._whole(part.data)
        return self.result()

    def _check_utf8(self, data: bytes, start: int) -> None:
        if data.isascii():
            return
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.invalid_utf8_at = start + exc.start

    def _lines(self, part: framing.Lines) -> None:
        fast = self.fast
        acct = self.acct
        if fast is None:
            self.run_values(
                sniff.split_lines(part.data, part.start, part.first_line, final=part.final)
            )
            return
        data, start, number, offset = part.data, part.start, part.first_line, 0
        end = len(data)
        last = _last_line_start(data) if part.final else -1
        ends_nl = data.endswith(b"\n")
        while offset < end:
            nl = data.find(b"\n", offset)
            stop = end if nl < 0 else nl
            if stop > offset and data[offset] == 0x7B:  # '{': a candidate for the fast path
                where = Where(acct.records_read, number, start + offset)
                if fast.decode(data[offset:stop], where):
                    acct.records_read += 1
                    acct.records_ingested += 1
                    self.json_records += 1
                    self.items += 1
                    number, offset = number + 1, stop + 1
                    continue
            # the reference takes this line (and only it), exactly as split_lines would
            chunk = data[offset : stop + 1] if nl >= 0 else data[offset:]
            lines = sniff.split_lines(
                chunk, start + offset, number, final=offset == last, ends_with_newline=ends_nl
            )
            for item in lines:
                self.item(item)
            number, offset = number + 1, stop + 1

    def _whole(self, data: bytes) -> None:
        """The one-shot path: the whole (decompressed) body, exactly as the reference reads it."""
        head = data.lstrip(sniff.BOM).lstrip()[:1]
        if head in (b"{", b"["):
            self._check_utf8(data, 0)
            if self.fast is not None and head == b"{" and self._whole_fast(data):
                self.framing = "single"
                return
            self.run_values(sniff.split_values(data))
            return
        if not head:
            self.reject(
                Code.E_NO_TRACES,
                None,
                "the input is empty",
                "check that the producer finished writing the export",
            )
            return
        if framing.length_prefixed(data[:64]):
            self.framing = "length-prefixed"
            self._records(data, 0, True)
            return
        if data[0] == 0x0A:  # field 1 (resource_spans): perhaps one bare serialized request
            request = _bare_request(data)
            if request is not None:
                self.framing = "single"
                self.items += 1
                self.proto_records += 1
                self.record(otlp_proto.request_to_json(request), sniff.Value(None, None, 0))
                return
        self.reject(Code.E_NOT_OTLP, "byte 0", describe_text(data))

    def _whole_fast(self, data: bytes) -> bool:
        body = data[len(sniff.BOM) :] if data.startswith(sniff.BOM) else data
        stripped = body.lstrip()
        first = len(body) - len(stripped)
        line = body.count(b"\n", 0, first) + 1
        offset = (len(data) - len(body)) + first
        assert self.fast is not None
        if not self.fast.decode(body, Where(0, line, offset)):
            return False
        self.acct.records_read += 1
        self.acct.records_ingested += 1
        self.json_records += 1
        self.items += 1
        return True

    # ------------------------------------------------------------------ length-prefixed
    def _records(self, data: bytes, start: int, final: bool) -> None:
        acct = self.acct
        for prefix, begin, end in framing.iter_records(data, start):
            self.items += 1
            where = Where(acct.records_read, None, start + prefix)
            span_text = f"bytes {start + prefix}–{start + min(end, len(data))}"
            if end > len(data):
                code = Code.E_TRUNCATED_RECORD if final else Code.E_INVALID_RECORD
                size_known = begin <= len(data)
                what = (
                    "the last length-prefixed record is cut short"
                    if size_known
                    else "the input ends inside a record's length prefix"
                )
                if end - begin > framing.MAX_RECORD_BYTES:
                    code, what = Code.E_INVALID_RECORD, "a length prefix beyond any record size"
                self._broken_bytes(where, data[prefix:], code, f"{what} ({span_text})")
                return
            payload = data[begin:end]
            if payload.startswith(sniff.ZSTD_MAGIC):
                unpacked = self._unzstd(payload)
                if isinstance(unpacked, Issue):
                    self._broken_bytes(
                        where, data[prefix:end], unpacked.code, f"{unpacked.message} ({span_text})"
                    )
                    continue
                self.zstd_records += 1
                self.extra_decoded += len(unpacked) - len(payload)
                payload = unpacked
            head = payload.lstrip(sniff.BOM).lstrip()[:1]
            if head in (b"{", b"["):
                self.json_records += 1
                values = list(sniff.split_values(payload))
                for item in values:
                    if isinstance(item, sniff.Broken):
                        self._broken_bytes(
                            where,
                            data[prefix:end],
                            Code.E_INVALID_RECORD,
                            f"{item.message} ({span_text})",
                        )
                        break
                else:
                    for item in values:
                        assert isinstance(item, sniff.Value)
                        item.line, item.byte_offset = None, start + prefix
                        self.value(item)
                continue
            try:
                request = otlp_proto.parse_request(payload)
            except otlp_proto.DecodeError as exc:
                self._broken_bytes(
                    where,
                    data[prefix:end],
                    Code.E_INVALID_PROTO_RECORD,
                    f"not a protobuf ExportTraceServiceRequest ({exc}) ({span_text})",
                )
                continue
            self.proto_records += 1
            self.record(
                otlp_proto.request_to_json(request), sniff.Value(None, None, start + prefix)
            )

    def _unzstd(self, payload: bytes) -> bytes | Issue:
        engine = zstd_decompressor()
        cap = self.options.max_decompressed_bytes
        try:
            out = engine.decompress(payload, max_length=cap + 1)
        except Exception as exc:  # zstd.ZstdError: a corrupt frame
            return Issue(
                Code.E_TRUNCATED_COMPRESSION, f"a zstd-compressed record is corrupt ({exc})"
            )
        if len(out) > cap:
            return Issue(Code.E_TOO_LARGE, f"a record decompresses beyond the cap of {cap} bytes")
        if not engine.eof:
            return Issue(Code.E_TRUNCATED_COMPRESSION, "a zstd-compressed record ends early")
        return bytes(out)

    def _broken_bytes(self, where: Where, raw: bytes, code: Code, message: str) -> None:
        acct = self.acct
        acct.records_read += 1
        acct.records_quarantined += 1
        text = orjson.dumps(base64.b64encode(raw).decode()).decode()
        self.quarantine(where, None, text, code, message)

    # ------------------------------------------------------------------ values
    def run_values(self, values: Iterable[sniff.Value | sniff.Broken]) -> None:
        for item in values:
            if isinstance(item, sniff.Broken) and item.code is Code.E_TRUNCATED_JSON:
                self.items += 1
                self.truncated_document(item)
                return
            self.item(item)

    def item(self, item: sniff.Value | sniff.Broken) -> None:
        self.items += 1
        if isinstance(item, sniff.Broken):
            self.broken(item)
        else:
            self.json_records += 1
            self.value(item)

    def value(self, item: sniff.Value) -> None:
        obj = item.obj
        if isinstance(obj, list) and obj and all(_is_request(x) for x in obj):
            for i, request in enumerate(obj):
                self.record(request, item, prefix=f"[{i}].")
            return
        self.record(obj, item)

    def record(self, obj: Any, item: sniff.Value, prefix: str = "") -> None:
        acct = self.acct
        where = Where(acct.records_read, item.line, item.byte_offset)
        acct.records_read += 1
        if item.nonstandard:
            self.log.add(Code.W_NONSTANDARD_JSON, "bare NaN/Infinity tokens", where)
        request = self.unwrap(obj, where)
        utf8_before = self.spans.invalid_utf8_values
        if request is None:
            if isinstance(obj, dict) and any(k in obj for k in OTHER_SIGNALS):
                acct.records_other_signal += 1
                self.log.add(Code.I_OTHER_SIGNAL, "a metrics/logs/profiles record skipped", where)
                return
            what = describe_non_otlp(obj)
            self.not_otlp.append(what)
            acct.records_quarantined += 1
            self.quarantine(
                where, prefix or None, obj, Code.E_NOT_OTLP, f"not an OTLP trace record: {what}"
            )
            return
        acct.records_ingested += 1
        self.spans.decode_request(request, where, prefix)
        others = item.invalid_utf8 - (self.spans.invalid_utf8_values - utf8_before)
        if others > 0:  # keys, names, messages: string values were reported with their path
            self.log.add(
                Code.W_INVALID_UTF8,
                f"{others} string(s) with lone surrogate escapes stored with U+FFFD",
                where,
            )

    def unwrap(self, obj: Any, where: Where) -> dict[str, Any] | None:
        """The trace request inside ``obj``, unwrapping known API envelopes (§1.2)."""
        if not isinstance(obj, dict):
            return None
        if "resourceSpans" in obj or "resource_spans" in obj:
            return obj
        result = obj.get("result")
        if isinstance(result, dict) and ("resourceSpans" in result or "resource_spans" in result):
            self.log.add(
                Code.W_ENVELOPE_UNWRAPPED, "Jaeger api_v3 {result: …} envelope", where, "result"
            )
            return result
        if isinstance(obj.get("batches"), list):
            self.log.add(
                Code.W_ENVELOPE_UNWRAPPED, "Tempo {batches: […]} envelope", where, "batches"
            )
            return {"resourceSpans": obj["batches"]}
        return None

    def broken(self, item: sniff.Broken) -> None:
        acct = self.acct
        where = Where(acct.records_read, item.line, item.byte_offset)
        acct.records_read += 1
        acct.records_quarantined += 1
        self.quarantine(
            where,
            None,
            item.raw,
            item.code,
            f"{item.message} (bytes {item.byte_offset}–{item.end_offset})",
        )

    def quarantine(
        self, where: Where, path: str | None, raw: Any, code: Code, message: str
    ) -> None:
        self.log.add(code, message, where, path, raw)
        c = self.spans.cols["quarantine"]
        c["record_index"].append(where.record_index)
        c["line"].append(where.line)
        c["byte_offset"].append(where.byte_offset)
        c["json_path"].append(path)
        c["raw_json"].append(raw if isinstance(raw, str) else raw_json(raw))
        c["codes"].append([code.value])

    def truncated_document(self, item: sniff.Broken) -> None:
        rescue = salvage_text(item.raw)
        if not self.options.salvage or rescue.text is None:
            self.reject(
                Code.E_TRUNCATED_JSON,
                f"byte {item.end_offset}",
                f"the JSON document ends inside a value (truncated download?); "
                f"{rescue.complete_spans} complete spans precede the cut",
                HINTS[Code.E_TRUNCATED_JSON] if rescue.complete_spans else "re-download the export",
            )
            return
        acct = self.acct
        where = Where(acct.records_read, item.line, item.byte_offset)
        self.log.add(
            Code.E_TRUNCATED_JSON,
            f"salvaged {rescue.complete_spans} complete spans before the cut at byte "
            f"{item.end_offset}",
            where,
        )
        self.framing = "single"
        self.partial = True
        try:
            value = sniff.Value(orjson.loads(rescue.text), item.line, item.byte_offset)
        except orjson.JSONDecodeError:  # NaN tokens, lone surrogates: the lenient path
            lenient = sniff.lenient_value(rescue.text, item.line, item.byte_offset)
            if lenient is None:
                self.reject(
                    Code.E_TRUNCATED_JSON,
                    f"byte {item.end_offset}",
                    "the JSON document ends inside a value and its complete spans do not parse",
                    "re-download the export",
                )
                return
            value = lenient
        self.record(value.obj, value)

    def reject(
        self, code: Code, pointer: str | None, problem: str, hint: str | None = None
    ) -> None:
        if self.rejection is None:
            self.rejection = Rejection(code, pointer, problem, hint)


def _bare_request(data: bytes) -> Any:
    """``data`` as one ExportTraceServiceRequest, if it parses as one that holds a real span
    (text that happens to start with a newline does not)."""
    try:
        request = otlp_proto.parse_request(data)
    except otlp_proto.DecodeError:
        return None
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            if any(len(span.trace_id) == 16 for span in ss.spans):
                return request
    return None


def _last_line_start(data: bytes) -> int:
    """Where the last non-blank line of ``data`` starts (-1 when every line is blank)."""
    end = len(data)
    while end > 0:
        nl = data.rfind(b"\n", 0, end)
        if data[nl + 1 : end].strip():
            return nl + 1
        if nl < 0:
            return -1
        end = nl
    return -1


def decode_part(part: framing.Part, options: DecodeOptions) -> PartResult:
    """Decode one part on its own (the unit of work of the process pool).

    The cyclic garbage collector is paused meanwhile: decoding allocates millions of short-lived
    acyclic objects, and each collection would walk all of them again for nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return PartDecoder(options).run_part(part)
    finally:
        if enabled:
            gc.enable()


# ---------------------------------------------------------------------------- merging
@dataclass(slots=True)
class Batch:
    """One part's rows with source-local row ids, and the issues to store with them."""

    tables: dict[str, pa.Table]
    issues: list[Issue]  # per-item issues; aggregated and source-level ones come at the end


_OWNER_ORDER = ("resource", "scope", "span", "event", "link")
_ROW_TABLES = ("resources", "scopes", "spans", "events", "links", "large_values")
_RECORD_TABLES = ("resources", "spans", "quarantine", "unknown_fields")
ISSUE_LIST_CAP = 100_000  # issues kept in memory for the report; the store gets every one


def rebase(
    part_tables: dict[str, pa.Table], rows: dict[str, int], record_offset: int
) -> dict[str, pa.Table]:
    """Shift a part's batch-local row ids and record indexes by what came before it."""
    out: dict[str, pa.Table] = {}
    for name, original in part_tables.items():
        table = original
        if table.num_rows:
            for column, owner in tables.ROW_ID_COLUMNS.get(name, {}).items():
                table = _shift(table, column, rows[owner])
            if record_offset and name in _RECORD_TABLES:
                table = _shift(table, "record_index", record_offset)
            if name == "attributes" and any(rows[tables.OWNER_TABLES[o]] for o in _OWNER_ORDER):
                index = pc.index_in(table["owner_type"], value_set=pa.array(_OWNER_ORDER))
                shift = pc.take(
                    pa.array([rows[tables.OWNER_TABLES[o]] for o in _OWNER_ORDER], pa.int64()),
                    index,
                )
                position = table.schema.get_field_index("owner_row")
                table = table.set_column(
                    position, table.schema.field(position), pc.add(table["owner_row"], shift)
                )
        out[name] = table
    return out


def _shift(table: pa.Table, column: str, offset: int) -> pa.Table:
    if not offset:
        return table
    position = table.schema.get_field_index(column)
    fld = table.schema.field(position)
    shifted = pc.add(table[column], pa.scalar(offset, fld.type))
    return table.set_column(position, fld, shifted)


class SourceMerger:
    """Folds the parts of one source, in order, into one source's rows, issues and accounting.

    Parts are decoded independently (batch-local row ids, their own issue logs); merging them in
    order gives exactly what one decoder reading the whole source gives: ids continue, the first
    occurrence of an aggregated note keeps its place and sums the occurrences, and the source's
    status, flavour and rejection are decided once, at the end.
    """

    def __init__(
        self,
        source: str,
        sha256: str,
        bytes_raw: int,
        options: DecodeOptions,
        *,
        keep: bool = False,
    ) -> None:
        self.out = DecodedSource(source, sha256, bytes_raw)
        self.options = options
        self.keep = keep  # keep every batch's tables (decode_export) rather than stream them
        self.kept: list[dict[str, pa.Table]] = []
        self.head: list[Issue] = []
        self.issues: list[Issue] = []
        self.dropped_issues: Counter[str] = Counter()
        self.aggregated: dict[Code, Issue] = {}
        self.rows = dict.fromkeys(_ROW_TABLES, 0)
        self.records = 0
        self.id_encodings: set[str] = set()
        self.not_otlp: str | None = None
        self.items = 0
        self.invalid_utf8_at: int | None = None
        self.extra_decoded = 0
        self.zstd_records = self.proto_records = self.json_records = self.fast_records = 0
        self.framing: str | None = None
        self.rejection: Rejection | None = None
        self.final: list[Issue] = []
        self.trace_ids: set[bytes] = set()
        self.span_rows = self.attribute_rows = 0

    def add(self, part: PartResult) -> Batch:
        rows, record_offset = dict(self.rows), self.records
        batch_tables = rebase(part.tables, rows, record_offset)
        for name in _ROW_TABLES:
            self.rows[name] += part.tables[name].num_rows
        self.records += part.accounting.records_read
        acct, got = self.out.accounting, part.accounting
        for name in (
            "records_read",
            "records_ingested",
            "records_other_signal",
            "records_quarantined",
            "spans_read",
            "spans_quarantined",
            "attributes_read",
            "attributes_quarantined",
        ):
            setattr(acct, name, getattr(acct, name) + getattr(got, name))
        batch_issues: list[Issue] = []
        for issue in part.issues:
            if issue.record_index is not None:
                issue.record_index += record_offset
            if issue.span_row is not None:
                issue.span_row += rows["spans"]
            if issue.code in AGGREGATED:
                first = self.aggregated.get(issue.code)
                if first is not None:
                    first.occurrences += issue.occurrences
                    continue
                self.aggregated[issue.code] = issue
                self._remember(issue)
                continue
            batch_issues.append(issue)
            self._remember(issue)
        self.id_encodings |= part.id_encodings
        if self.not_otlp is None:
            self.not_otlp = part.not_otlp
        self.items += part.items
        if self.invalid_utf8_at is None:
            self.invalid_utf8_at = part.invalid_utf8_at
        self.extra_decoded += part.extra_decoded
        self.zstd_records += part.zstd_records
        self.proto_records += part.proto_records
        self.json_records += part.json_records
        self.fast_records += part.fast_records
        self.framing = part.framing or self.framing
        self.rejection = self.rejection or part.rejection
        if part.partial:
            self.out.status = "partial"
        spans = batch_tables["spans"]
        if spans.num_rows:
            self.trace_ids.update(pc.unique(spans["trace_id"]).to_pylist())
        self.span_rows += spans.num_rows
        self.attribute_rows += batch_tables["attributes"].num_rows
        if self.keep:
            self.kept.append(batch_tables)
        return Batch(batch_tables, batch_issues)

    def _remember(self, issue: Issue) -> None:
        if len(self.issues) < ISSUE_LIST_CAP or issue.code in AGGREGATED:
            self.issues.append(issue)
        else:
            self.dropped_issues[issue.code.value] += issue.occurrences

    def problem(self, code: Code, message: str) -> None:
        """A source-level problem of decompression (logged first, as the reference does)."""
        self.head.insert(0, Issue(code, message))
        self.out.status = "partial"

    # ------------------------------------------------------------------ outcome
    def finish(
        self,
        compression: str = "none",
        framing_name: str | None = None,
        bytes_decoded: int = 0,
    ) -> DecodedSource:
        out, acct = self.out, self.out.accounting
        out.compression = compression
        if compression == "none" and self.zstd_records:
            out.compression = "zstd-legacy"
        out.bytes_decoded = bytes_decoded + self.extra_decoded
        out.framing = self.framing or framing_name or ("single" if self.items <= 1 else "stream")
        if self.invalid_utf8_at is not None:
            self.head.append(
                Issue(
                    Code.W_INVALID_UTF8,
                    "invalid UTF-8 bytes replaced with U+FFFD",
                    byte_offset=self.invalid_utf8_at,
                )
            )
        if self.rejection is not None:
            r = self.rejection
            return self._reject(r.code, r.pointer, r.problem, r.hint, log=r.log)
        if acct.records_ingested == 0:
            if self.not_otlp:  # the record-level E_NOT_OTLP issue already says it
                return self._reject(Code.E_NOT_OTLP, None, f"not OTLP: {self.not_otlp}", log=False)
            if acct.records_other_signal:
                return self._reject(
                    Code.E_NO_TRACES,
                    None,
                    f"no trace records ({acct.records_other_signal} records of other signals)",
                )
            first = next((i for i in self.all_issues() if i.severity.value == "error"), None)
            if first is not None:  # already in the log: not counted twice
                return self._reject(first.code, pointer(first), first.message, log=False)
            return self._reject(Code.E_NO_TRACES, None, "no trace records")
        encodings = self.id_encodings
        if encodings == {"hex", "base64"}:
            self.final.append(Issue(Code.W_MIXED_ID_ENCODING, "hex and base64 ids in one source"))
            out.encoding_flavor = "mixed"
        elif "base64" in encodings or any(
            c in self.aggregated for c in (Code.I_SNAKE_CASE_KEYS, Code.I_ENUM_NAMES)
        ):
            out.encoding_flavor = "proto3-generic"
        if self.proto_records:
            out.encoding_flavor = "otlp-proto" if not self.json_records else "mixed"
        if acct.records_quarantined and out.status == "ok":
            out.status = "partial"
        out.issues = self.all_issues()
        if self.keep:
            out.tables = _concat(self.kept)
            out.tables["issues"] = issues_table(out.issues)
        return out

    def all_issues(self) -> list[Issue]:
        return [*self.head, *self.issues, *self.final]

    def closing_issues(self) -> list[Issue]:
        """Issues the store writes after the last batch: source-level and aggregated ones."""
        return [*self.head, *self.aggregated.values(), *self.final]

    def issue_counts(self) -> Counter[str]:
        counts: Counter[str] = Counter(self.dropped_issues)
        for issue in self.all_issues():
            counts[issue.code.value] += issue.occurrences
        return counts

    def _reject(
        self,
        code: Code,
        pointer_: str | None,
        problem: str,
        hint: str | None = None,
        *,
        log: bool = True,
    ) -> DecodedSource:
        if log:
            self.final.append(Issue(code, problem, json_path=pointer_))
        self.out.status = "rejected"
        self.out.issues = self.all_issues()
        self.out.rejection = IngestError(
            self.out.source, pointer_, problem, hint or HINTS[code], code=code.value
        )
        return self.out


def _concat(batches: list[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    if len(batches) == 1:
        return dict(batches[0])
    return {
        name: pa.concat_tables([b[name] for b in batches])
        for name in (batches[0] if batches else {})
    }


# ---------------------------------------------------------------------------- streaming
class SourceStream:
    """Decode one source part by part: iterate for its ``Batch``es, then read ``result``.

    ``chunks`` are the raw bytes (a file read piece by piece); they are decompressed and
    framed on the fly, so memory holds a few parts, never the source. With an ``executor``
    (a process pool) up to ``ahead`` parts are decoded in parallel while the caller commits
    earlier batches; results are consumed strictly in order.
    """

    def __init__(
        self,
        chunks: Iterable[bytes],
        source: str,
        sha256: str,
        bytes_raw: int,
        options: DecodeOptions,
        executor: Executor | None = None,
        ahead: int = 3,
    ) -> None:
        self.chunks = chunks
        self.options = options
        self.executor = executor
        self.ahead = max(1, ahead)
        self.keep = False
        self.merger = SourceMerger(source, sha256, bytes_raw, options)
        self._result: DecodedSource | None = None

    @property
    def result(self) -> DecodedSource:
        if self._result is None:
            raise RuntimeError("iterate the stream to its end first")
        return self._result

    def __iter__(self) -> Iterator[Batch]:
        merger = self.merger
        merger.keep = self.keep
        unpacker = Unpacker(self.chunks, self.options.max_decompressed_bytes)
        framer = framing.Framer(unpacker, self.options.batch_bytes)
        cap = self.options.max_decompressed_bytes
        for result in self._decoded(iter(framer)):
            yield merger.add(result)
            if unpacker.bytes_out + merger.extra_decoded > cap and merger.zstd_records:
                merger.problem(
                    Code.E_TOO_LARGE, f"decompressed size exceeds the cap of {cap} bytes"
                )
                break
        if unpacker.problem is not None:
            merger.problem(unpacker.problem, unpacker.message or "")
        self._result = merger.finish(
            unpacker.compression,
            framer.framing if framer.streamed else None,
            unpacker.bytes_out,
        )

    def _decoded(self, parts: Iterator[framing.Part]) -> Iterator[PartResult]:
        if self.executor is None:
            for part in parts:
                yield decode_part(part, self.options)
            return
        pending: list[Future[PartResult]] = []
        submit: Callable[..., Future[PartResult]] = self.executor.submit
        for part in parts:
            pending.append(submit(decode_part, part, self.options))
            if len(pending) > self.ahead:
                yield pending.pop(0).result()
        while pending:
            yield pending.pop(0).result()


def issues_table(issues: list[Issue]) -> pa.Table:
    rows = {name: [] for name in tables.ISSUES.names}  # type: dict[str, list[Any]]
    for i in issues:
        rows["severity"].append(i.severity.value)
        rows["code"].append(i.code.value)
        rows["record_index"].append(i.record_index)
        rows["line"].append(i.line)
        rows["byte_offset"].append(i.byte_offset)
        rows["json_path"].append(i.json_path)
        rows["span_row"].append(i.span_row)
        rows["message"].append(i.message)
        rows["value_excerpt"].append(i.value_excerpt)
        rows["hint"].append(i.hint)
        rows["occurrences"].append(i.occurrences)
    return tables.conform(pa.table(rows, schema=tables.ISSUES), tables.ISSUES)


def _is_request(obj: Any) -> bool:
    return isinstance(obj, dict) and any(
        k in obj for k in ("resourceSpans", "resource_spans", *OTHER_SIGNALS)
    )


def pointer(issue: Issue) -> str | None:
    """Where an issue is, as an error message leads with it: ``line 42: resourceSpans[0]…``."""
    parts = [f"line {issue.line}" if issue.line is not None else None, issue.json_path]
    return ": ".join(p for p in parts if p) or None
