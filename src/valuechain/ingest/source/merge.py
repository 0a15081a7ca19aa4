"""Merging decoded parts into one source: row-id rebasing, cross-batch duplicates, totals."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.issues import AGGREGATED, HINTS, Code, Issue, issues_table
from valuechain.contract.tables.rows import rebase
from valuechain.errors import IngestError
from valuechain.ingest.mcpjam.payloads import NotResults, Quarantined
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.ingest.source.issue_log import pointer
from valuechain.ingest.source.records import PartResult, Rejection


# ---------------------------------------------------------------------------- merging
@dataclass(slots=True)
class Batch:
    """One part's rows with source-local row ids, and the issues to store with them."""

    tables: dict[str, pa.Table]
    issues: list[Issue]  # per-item issues; aggregated and source-level ones come at the end


ROW_TABLES = ("resources", "scopes", "spans", "events", "links", "large_values")
ISSUE_LIST_CAP = 100_000  # issues kept in memory for the report; the store gets every one


NO_BYTES_SHA256 = hashlib.sha256(b"").hexdigest()


class SourceMerger:
    """Folds the parts of one source, in order, into one source's rows, issues and accounting.

    Parts are decoded independently (batch-local row ids, their own issue logs); merging them in
    order gives exactly what one decoder reading the whole source gives: ids continue, the first
    occurrence of an aggregated note keeps its place and sums the occurrences, and the source's
    status, flavour and rejection are decided once, at the end.
    """

    def __init__(self, source: str, options: DecodeOptions, *, keep: bool = False) -> None:
        # no bytes yet: whoever reads them records their sha256 and size (``SourceStream``)
        self.out = DecodedSource(source, NO_BYTES_SHA256, 0)
        self.options = options
        self.keep = keep  # keep every batch's tables (decode_export) rather than stream them
        self.kept: list[dict[str, pa.Table]] = []
        self.head: list[Issue] = []
        self.issues: list[Issue] = []
        self.dropped_issues: Counter[str] = Counter()
        self.aggregated: dict[Code, Issue] = {}
        self.rows = dict.fromkeys(ROW_TABLES, 0)
        self.records = 0
        self.id_encodings: set[str] = set()
        self.not_otlp: str | None = None
        self.items = 0
        self.invalid_utf8_at: int | None = None
        self.extra_decoded = 0
        self.zstd_records = self.proto_records = self.json_records = self.fast_records = 0
        self.native_records = 0
        self.framing: str | None = None
        self.rejection: Rejection | None = None
        self.final: list[Issue] = []
        self.trace_ids: set[bytes] = set()
        self.span_rows = self.attribute_rows = 0

    def merge(self, part: PartResult) -> Batch:
        rows, record_offset = dict(self.rows), self.records
        batch_tables = rebase(part.tables, rows, record_offset)
        for name in ROW_TABLES:
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
        self.native_records += part.native_records
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

    def sdk_translated(self, quarantined: list[Quarantined], refused: NotResults | None) -> None:
        """What translating MCPJam SDK results found: each result that is none, quarantined
        with its JSON path (one record of the accounting, TRACE-FORMAT §5.1); or the source
        refused, naming what it is."""
        acct = self.out.accounting
        for q in quarantined:
            self.head.append(Issue(Code.E_INVALID_RECORD, q.problem, line=q.line, json_path=q.path))
            acct.records_read += 1
            acct.records_quarantined += 1
            self.records += 1
        if refused is not None:
            self.rejection = Rejection(
                Code.E_NOT_OTLP, None, f"not OTLP: {refused.problem}", refused.hint
            )

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
        out.native_records, out.fast_records = self.native_records, self.fast_records
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
                hint = _nothing_imported(acct.records_read)
                return self._reject(first.code, pointer(first), first.message, hint, log=False)
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


def _nothing_imported(records: int) -> str:
    """The hint of a source whose every record was quarantined, counted as it happened (the
    code's own hint speaks of "the rest", which a rejected source does not have)."""
    what = "its only record was" if records == 1 else f"all {records} of its records were"
    return f"nothing was imported: {what} quarantined; repair or re-export the source"


def _concat(batches: list[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    if len(batches) == 1:
        return dict(batches[0])
    return {
        name: pa.concat_tables([b[name] for b in batches])
        for name in (batches[0] if batches else {})
    }
