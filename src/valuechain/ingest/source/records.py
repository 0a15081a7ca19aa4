"""Decoding the records of one part into span tables: JSON values, protobuf requests, breaks.

``RecordDecoder`` takes what framing found (parsed values and broken stretches) and protobuf
requests, one record at a time: it unwraps known API envelopes (TRACE-FORMAT §1.2), counts
other signals, names what a non-OTLP record looks like, quarantines broken stretches with their
raw text, salvages or rejects a truncated document (§5.2), and hands each trace request to the
fast path or the reference decoder. Row ids and record indexes are part-local; ``PartResult``
is what ``merge.py`` folds into the source.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa

from valuechain.contract.issues import HINTS, Code, Issue, excerpt
from valuechain.contract.ledger import Accounting
from valuechain.ingest.bytes import json_keys, json_values
from valuechain.ingest.bytes.recognise import describe_non_otlp
from valuechain.ingest.bytes.salvage import salvage as salvage_text
from valuechain.ingest.otlp import fast as fastpath
from valuechain.ingest.otlp import proto as otlp_proto
from valuechain.ingest.otlp.fields import raw_json
from valuechain.ingest.otlp.json import SpanDecoder
from valuechain.ingest.otlp.keys import OTHER_SIGNALS, is_request
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.ingest.source.issue_log import IssueLog, Where


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
    native_records: int = 0  # records the native path (``native.py``) decoded
    refused: bool = False  # a run of a document the native path cannot take: read it again
    again: str = ""  # how: in runs of whole items (``items.ITEMS``), or whole ("")


class RecordDecoder:
    """Decodes the records of one part with a fresh issue log and batch-local row ids."""

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

    def _took_fast(self, raw: bytes, where: Where, *, written_here: bool = False) -> bool:
        """Whether the fast path decoded this record; counted as ``record`` counts one."""
        if self.fast is None or not self.fast.decode(raw, where, written_here=written_here):
            return False
        self.acct.records_read += 1
        self.acct.records_ingested += 1
        return True

    def _proto(self, request: Any, byte_offset: int) -> None:
        """A parsed protobuf request, decoded as its canonical OTLP/JSON is."""
        self.proto_records += 1
        canonical = otlp_proto.request_to_json(request)
        where = Where(self.acct.records_read, None, byte_offset)
        try:
            raw = orjson.dumps(canonical)
        except TypeError:  # nested beyond orjson's 255 levels: the reference caps the depth
            raw = b""
        if not raw or not self._took_fast(raw, where, written_here=True):
            self.record(canonical, json_values.Value(None, None, byte_offset))

    # ------------------------------------------------------------------ values
    def run_values(self, values: Iterable[json_values.Value | json_values.Broken]) -> None:
        for item in values:
            if isinstance(item, json_values.Broken) and item.code is Code.E_TRUNCATED_JSON:
                self.items += 1
                self.truncated_document(item)
                return
            self.item(item)

    def item(self, item: json_values.Value | json_values.Broken) -> None:
        self.items += 1
        if isinstance(item, json_values.Broken):
            self.broken(item)
        else:
            self.json_records += 1
            self.value(item)

    def value(self, item: json_values.Value) -> None:
        obj = item.obj
        if isinstance(obj, list) and obj and all(is_request(x) for x in obj):
            for i, request in enumerate(obj):
                self.record(request, item, prefix=f"[{i}].")
            return
        self.record(obj, item)

    def record(self, obj: Any, item: json_values.Value, prefix: str = "") -> None:
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
        self.repeated_keys(item, where, prefix)
        self.spans.decode_request(request, where, prefix)
        others = item.invalid_utf8 - (self.spans.invalid_utf8_values - utf8_before)
        if others > 0:  # keys, names, messages: string values were reported with their path
            self.log.add(
                Code.W_INVALID_UTF8,
                f"{others} string(s) with lone surrogate escapes stored with U+FFFD",
                where,
            )

    def repeated_keys(self, item: json_values.Value, where: Where, prefix: str) -> None:
        """A key repeated in one object of the record (``prefix``: of its value), one issue
        each: the readers all keep the last value (TRACE-FORMAT §5.2 W_DUPLICATE_JSON_KEY)."""
        for dup in item.duplicates:
            if dup.path.startswith(prefix):
                kept = excerpt(dup.kept)
                brief = kept if kept is None or len(kept) <= 40 else kept[:39] + "…"
                self.log.add(
                    Code.W_DUPLICATE_JSON_KEY,
                    f"JSON key {dup.key!r} appears {dup.count} times in one object; "
                    f"the last value was kept: {brief}",
                    where,
                    dup.path,
                    dup.kept,
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

    def broken(self, item: json_values.Broken) -> None:
        acct = self.acct
        where = Where(acct.records_read, item.line, item.byte_offset)
        acct.records_read += 1
        acct.records_quarantined += 1
        self.quarantine(
            where,
            item.path,
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

    def truncated_document(self, item: json_values.Broken) -> None:
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
            obj = orjson.loads(rescue.text)
            repeated = json_keys.duplicate_keys(rescue.text, obj)
            value = json_values.Value(obj, item.line, item.byte_offset, duplicates=repeated)
        except orjson.JSONDecodeError:  # NaN tokens, lone surrogates: the lenient path
            try:
                lenient = json_values.lenient_value(rescue.text, item.line, item.byte_offset)
            except json_values.NumberTooLongError:
                lenient = None
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
