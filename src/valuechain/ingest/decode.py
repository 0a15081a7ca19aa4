"""One export's bytes → span tables, issues and accounting (pure; TRACE-FORMAT §1.8, §5).

``decode_export`` is the library entry point behind ``valuechain.decode``: it takes bytes (or an
already-parsed request) and a source name, and returns a ``DecodedSource``. It never touches
the store or the file system. A source that cannot be imported at all comes back with
``status == "rejected"`` and a ``rejection`` error that names the place and the fix.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson
import pyarrow as pa

from valuechain.contract import tables
from valuechain.errors import IngestError
from valuechain.ingest import sniff
from valuechain.ingest.issues import HINTS, Code, Issue, IssueLog, Where
from valuechain.ingest.otlp_json import DEFAULT_LARGE_VALUE_THRESHOLD, SpanDecoder, raw_json
from valuechain.ingest.recognise import describe_non_otlp, describe_text
from valuechain.ingest.salvage import salvage as salvage_text
from valuechain.ingest.scalars import scrub_surrogates

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
    compression: str = "none"
    framing: str = "single"
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
        return _Decoding(source, b"", options).run_values([value])
    return _Decoding(source, data, options).run()


class _Decoding:
    def __init__(self, source: str, data: bytes, options: DecodeOptions) -> None:
        self.out = DecodedSource(source, hashlib.sha256(data).hexdigest(), len(data))
        self.data = data
        self.options = options
        self.log = IssueLog()
        self.spans = SpanDecoder(self.log, large_value_threshold=options.large_value_threshold)
        self.not_otlp: list[str] = []

    # ------------------------------------------------------------------ driver
    def run(self) -> DecodedSource:
        unpacked = sniff.decompress(self.data, self.options.max_decompressed_bytes)
        self.out.compression = unpacked.compression
        self.out.bytes_decoded = len(unpacked.data)
        if unpacked.problem is not None:
            self.log.add(unpacked.problem, unpacked.message or "", Where())
            self.out.status = "partial"
        if unpacked.data.startswith(sniff.ZSTD_MAGIC):
            return self.reject(
                Code.E_NOT_OTLP,
                None,
                "zstd-compressed input is not supported by this version",
                "decompress with `zstd -d` first",
            )
        head = unpacked.data.lstrip(sniff.BOM).lstrip()[:1]
        if head not in (b"{", b"["):
            if not head:
                return self.reject(
                    Code.E_NO_TRACES,
                    None,
                    "the input is empty",
                    "check that the producer finished writing the export",
                )
            return self.reject(Code.E_NOT_OTLP, "byte 0", describe_text(unpacked.data))
        try:
            unpacked.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.log.add(
                Code.W_INVALID_UTF8,
                "invalid UTF-8 bytes replaced with U+FFFD",
                Where(byte_offset=exc.start),
            )
        return self.run_values(sniff.split_values(unpacked.data))

    def run_values(self, values: Any) -> DecodedSource:
        count = 0
        for item in values:
            count += 1
            if isinstance(item, sniff.Broken):
                if item.code is Code.E_TRUNCATED_JSON:
                    return self.truncated_document(item)
                self.broken(item)
            else:
                self.value(item)
        self.out.framing = "single" if count <= 1 else "stream"
        return self.finish()

    # ------------------------------------------------------------------ records
    def value(self, item: sniff.Value) -> None:
        obj = item.obj
        if isinstance(obj, list) and obj and all(_is_request(x) for x in obj):
            for i, request in enumerate(obj):
                self.record(request, item, prefix=f"[{i}].")
            return
        self.record(obj, item)

    def record(self, obj: Any, item: sniff.Value, prefix: str = "") -> None:
        acct = self.out.accounting
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
        acct = self.out.accounting
        where = Where(acct.records_read, item.line, item.byte_offset)
        acct.records_read += 1
        acct.records_quarantined += 1
        self.out.status = "partial"
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

    def truncated_document(self, item: sniff.Broken) -> DecodedSource:
        rescue = salvage_text(item.raw)
        if not self.options.salvage or rescue.text is None:
            return self.reject(
                Code.E_TRUNCATED_JSON,
                f"byte {item.end_offset}",
                f"the JSON document ends inside a value (truncated download?); "
                f"{rescue.complete_spans} complete spans precede the cut",
                HINTS[Code.E_TRUNCATED_JSON] if rescue.complete_spans else "re-download the export",
            )
        acct = self.out.accounting
        where = Where(acct.records_read, item.line, item.byte_offset)
        self.log.add(
            Code.E_TRUNCATED_JSON,
            f"salvaged {rescue.complete_spans} complete spans before the cut at byte "
            f"{item.end_offset}",
            where,
        )
        self.out.status = "partial"
        self.out.framing = "single"
        try:
            value = sniff.Value(orjson.loads(rescue.text), item.line, item.byte_offset)
        except orjson.JSONDecodeError:  # NaN tokens, lone surrogates: the lenient path
            lenient = sniff.lenient_value(rescue.text, item.line, item.byte_offset)
            if lenient is None:
                return self.reject(
                    Code.E_TRUNCATED_JSON,
                    f"byte {item.end_offset}",
                    "the JSON document ends inside a value and its complete spans do not parse",
                    "re-download the export",
                )
            value = lenient
        self.record(value.obj, value)
        return self.finish()

    # ------------------------------------------------------------------ outcome
    def finish(self) -> DecodedSource:
        acct = self.out.accounting
        if acct.records_ingested == 0:
            if self.not_otlp:  # the record-level E_NOT_OTLP issue already says it
                return self.reject(
                    Code.E_NOT_OTLP, None, f"not OTLP: {self.not_otlp[0]}", log=False
                )
            if acct.records_other_signal:
                return self.reject(
                    Code.E_NO_TRACES,
                    None,
                    f"no trace records ({acct.records_other_signal} records of other signals)",
                )
            first = next((i for i in self.log.issues if i.severity.value == "error"), None)
            if first is not None:  # already in the log: not counted twice
                return self.reject(first.code, pointer(first), first.message, log=False)
            return self.reject(Code.E_NO_TRACES, None, "no trace records")
        acct.spans_read = self.spans.spans_read
        acct.spans_quarantined = self.spans.spans_quarantined
        acct.attributes_read = self.spans.attributes_read
        acct.attributes_quarantined = self.spans.attributes_quarantined
        encodings = self.spans.id_encodings
        if encodings == {"hex", "base64"}:
            self.log.add(Code.W_MIXED_ID_ENCODING, "hex and base64 ids in one source", Where())
            self.out.encoding_flavor = "mixed"
        elif "base64" in encodings or any(
            self.log.count(c) for c in (Code.I_SNAKE_CASE_KEYS, Code.I_ENUM_NAMES)
        ):
            self.out.encoding_flavor = "proto3-generic"
        self.out.tables = self.spans.tables()
        self.out.issues = self.log.issues
        self.out.tables["issues"] = issues_table(self.out.issues)
        if acct.records_quarantined and self.out.status == "ok":
            self.out.status = "partial"
        return self.out

    def reject(
        self,
        code: Code,
        pointer: str | None,
        problem: str,
        hint: str | None = None,
        *,
        log: bool = True,
    ) -> DecodedSource:
        if log:
            self.log.add(code, problem, Where(), pointer)
        self.out.status = "rejected"
        self.out.issues = self.log.issues
        self.out.rejection = IngestError(
            self.out.source, pointer, problem, hint or HINTS[code], code=code.value
        )
        return self.out


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
