"""Decoding one part of a source (a batch of records, or a whole document) into tables.

A part is what ``Framer`` cut (TRACE-FORMAT §1.8, §5.3): whole NDJSON lines, whole
length-prefixed records, or the whole body. ``PartDecoder`` finds its records — NDJSON lines
straight to the fast path where it takes them, length-prefixed payloads (JSON, protobuf, or a
zstd frame holding either), a single document, a bare protobuf request — and hands each to
``RecordDecoder`` (``records.py``); ``decode_part`` is the unit of work of the process pool.
"""

from __future__ import annotations

import base64
import gc
from dataclasses import replace

import orjson

from valuechain.contract.issues import Code, Issue
from valuechain.ingest.bytes import binary_frames, framing, json_values
from valuechain.ingest.bytes.compression import ZSTD_MAGIC, unzstd_record
from valuechain.ingest.bytes.json_locate import Locator
from valuechain.ingest.bytes.recognise import describe_text, wide_text
from valuechain.ingest.otlp import native
from valuechain.ingest.otlp import proto as otlp_proto
from valuechain.ingest.source.decoded import DecodeOptions
from valuechain.ingest.source.issue_log import Where
from valuechain.ingest.source.native_parts import (
    LineRuns,
    document,
    document_items,
    has_null,
    native_result,
    valid_utf8,
)
from valuechain.ingest.source.records import PartResult, RecordDecoder


class PartDecoder(RecordDecoder):
    """Decodes one part (or a whole source): finds its records and decodes each."""

    def run_part(self, part: framing.Part) -> PartResult:
        if isinstance(part, framing.Lines):
            self._check_utf8(part.data, part.start)
            self._lines(part)
        elif isinstance(part, framing.Records):
            self._records(part.data, part.start, part.final)
        else:
            self._whole(part.data, part.nuls if isinstance(part, framing.Whole) else 0)
        return self.result()

    def _check_utf8(self, data: bytes, start: int) -> None:
        if data.isascii():
            return
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.invalid_utf8_at = start + exc.start

    def _lines(self, part: framing.Lines) -> None:
        acct = self.acct
        if self.fast is None:
            self.run_values(
                json_values.split_lines(part.data, part.start, part.first_line, final=part.final)
            )
            return
        data, start, number, offset = part.data, part.start, part.first_line, 0
        end = len(data)
        last = framing.last_line_start(data) if part.final else -1
        ends_nl = data.endswith(b"\n")
        while offset < end:
            nl = data.find(b"\n", offset)
            stop = end if nl < 0 else nl
            if stop > offset and data[offset] == 0x7B:  # '{': a candidate for the fast path
                where = Where(acct.records_read, number, start + offset)
                if self._took_fast(data[offset:stop], where):
                    self.json_records += 1
                    self.items += 1
                    number, offset = number + 1, stop + 1
                    continue
            # the reference takes this line (and only it), exactly as split_lines would
            chunk = data[offset : stop + 1] if nl >= 0 else data[offset:]
            lines = json_values.split_lines(
                chunk, start + offset, number, final=offset == last, ends_with_newline=ends_nl
            )
            for item in lines:
                self.item(item)
            number, offset = number + 1, stop + 1

    def _whole(self, data: bytes, nuls: int = 0) -> None:
        """The one-shot path: the whole (decompressed) body, exactly as the reference reads it
        (``nuls``: NUL bytes after ``data``, counted, not held: ``framing.Whole``)."""
        wide = wide_text(data)
        if wide is not None:  # named before any reading tells of "binary data" or bad JSON
            self.reject(Code.E_NOT_OTLP, "byte 0", wide.problem(), wide.hint())
            return
        head = data.lstrip(json_values.BOM).lstrip()[:1]
        if head in (b"{", b"["):
            self._check_utf8(data, 0)
            if self.fast is not None and head == b"{" and self._whole_fast(data):
                self.framing = "single"
                return
            self.run_values(json_values.split_values(data, nuls))
            self._locate_issues(data)
            return
        if not head:
            self.reject(
                Code.E_NO_TRACES,
                None,
                "the input is empty",
                "check that the producer finished writing the export",
            )
            return
        if binary_frames.length_prefixed(data[:64]):
            self.framing = "length-prefixed"
            self._records(data, 0, True)
            return
        if data[0] == 0x0A:  # field 1 (resource_spans): perhaps one bare serialized request
            try:
                request = otlp_proto.bare_request(data, nuls)
            except otlp_proto.TooDeepError as exc:
                self.framing = "single"
                self.items += 1
                message = f"{exc} (bytes 0–{len(data) + nuls})"
                self._broken_bytes(Where(0, None, 0), data, Code.E_RECORD_TOO_DEEP, message)
                return
            if request is not None:
                self.framing = "single"
                self.items += 1
                self._proto(request, 0)
                return
        self.reject(Code.E_NOT_OTLP, "byte 0", describe_text(data))

    def _locate_issues(self, data: bytes) -> None:
        """Issues of a multi-line document (pretty-printed, alone or concatenated) at their
        value, not at the line and byte where the document starts. A value on its record's
        first line keeps the record's place, so NDJSON reads the same whole or in parts."""
        locators: dict[int, Locator] = {}
        for issue in self.log.issues:
            if issue.json_path is None or issue.line is None or issue.byte_offset is None:
                continue
            start = issue.byte_offset
            locator = locators.get(start) or locators.setdefault(start, Locator(data, start))
            offset = locator.offset(issue.json_path)
            if offset is not None and data.find(b"\n", start, offset) >= 0:
                issue.byte_offset = offset
                issue.line, issue.column = locator.line_column(offset)

    def took_single_document(self, data: bytes) -> bool:
        """Whether the msgspec fast path took ``data`` as one canonical document."""
        if self.fast is None or data.lstrip(json_values.BOM).lstrip()[:1] != b"{":
            return False
        self._check_utf8(data, 0)
        if not self._whole_fast(data):
            return False
        self.framing = "single"
        return True

    def _whole_fast(self, data: bytes) -> bool:
        body, line, offset = json_values.first_value(data)
        if not self._took_fast(body, Where(0, line, offset)):
            return False
        self.json_records += 1
        self.items += 1
        return True

    # ------------------------------------------------------------------ length-prefixed
    def _records(self, data: bytes, start: int, final: bool) -> None:
        acct = self.acct
        for prefix, begin, end in binary_frames.iter_records(data, start):
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
                if final and data[begin : begin + len(ZSTD_MAGIC)] == ZSTD_MAGIC:
                    # legacy zstd: each record is one compressed frame, and this one is cut
                    code, what = Code.E_TRUNCATED_COMPRESSION, "the last zstd record is cut short"
                if end - begin > binary_frames.MAX_RECORD_BYTES:
                    code, what = Code.E_INVALID_RECORD, "a length prefix beyond any record size"
                self._broken_bytes(where, data[prefix:], code, f"{what} ({span_text})")
                return
            payload = data[begin:end]
            if payload.startswith(ZSTD_MAGIC):
                unpacked = unzstd_record(payload, self.options.max_decompressed_bytes)
                if isinstance(unpacked, Issue):
                    self._broken_bytes(
                        where, data[prefix:end], unpacked.code, f"{unpacked.message} ({span_text})"
                    )
                    continue
                self.zstd_records += 1
                self.extra_decoded += len(unpacked) - len(payload)
                payload = unpacked
            head = payload.lstrip(json_values.BOM).lstrip()[:1]
            if head in (b"{", b"["):
                self.json_records += 1
                values = list(json_values.split_values(payload))
                for item in values:
                    if isinstance(item, json_values.Broken):
                        too_deep = item.code is Code.E_RECORD_TOO_DEEP
                        self._broken_bytes(
                            where,
                            data[prefix:end],
                            item.code if too_deep else Code.E_INVALID_RECORD,
                            f"{item.message} ({span_text})",
                        )
                        break
                else:
                    for item in values:
                        assert isinstance(item, json_values.Value)
                        item.line, item.byte_offset = None, start + prefix
                        self.value(item)
                continue
            try:
                request = otlp_proto.parse_request(payload)
            except otlp_proto.TooDeepError as exc:
                self._broken_bytes(
                    where, data[prefix:end], Code.E_RECORD_TOO_DEEP, f"{exc} ({span_text})"
                )
                continue
            except otlp_proto.DecodeError as exc:
                self._broken_bytes(
                    where,
                    data[prefix:end],
                    Code.E_INVALID_PROTO_RECORD,
                    f"not a protobuf ExportTraceServiceRequest ({exc}) ({span_text})",
                )
                continue
            self._proto(request, start + prefix)

    def _broken_bytes(self, where: Where, raw: bytes, code: Code, message: str) -> None:
        acct = self.acct
        acct.records_read += 1
        acct.records_quarantined += 1
        text = orjson.dumps(base64.b64encode(raw).decode()).decode()
        self.quarantine(where, None, text, code, message)


def decode_part(part: framing.Part, options: DecodeOptions) -> PartResult:
    """Decode one part on its own (the unit of work of the process pool).

    The cyclic garbage collector is paused meanwhile: decoding allocates millions of short-lived
    acyclic objects, and each collection would walk all of them again for nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        if isinstance(part, framing.Items):  # only ever framed for the native path
            return document_items(part, options)
        if options.native and options.fast:
            if isinstance(part, framing.Whole) and not options.native_parts:
                single = PartDecoder(replace(options, native=False))
                if single.took_single_document(part.data):  # msgspec's, one canonical record
                    return single.result()
            if isinstance(part, framing.Whole) or options.native_parts:
                result = _native_part(part, options)
                if result is not None:
                    return result
        return PartDecoder(options).run_part(part)
    finally:
        if enabled:
            gc.enable()


def _native_part(part: framing.Part, options: DecodeOptions) -> PartResult | None:
    """The part through the native path where it may take it (None: it may not)."""
    if isinstance(part, framing.Lines):
        if not valid_utf8(part.data):
            return None
        slow = replace(options, native=False)
        return LineRuns(part, options, lambda p: PartDecoder(slow).run_part(p)).run()
    if not isinstance(part, framing.Whole):
        return None
    body = part.data[len(json_values.BOM) :] if part.data.startswith(json_values.BOM) else part.data
    if body.lstrip()[:1] != b"{" or has_null(body):
        return None
    if not valid_utf8(body):
        return None
    table = native.parse(body, document=True)  # one document, or NDJSON under a part's size
    if table is None or table.num_rows == 0:
        return None
    if table.num_rows == 1 and len(body) > options.batch_bytes:
        decoded = document(table, options)
    else:
        decoded = native.decode(table, options.large_value_threshold)
    if not isinstance(decoded, native.Decoded):
        return None
    return native_result(decoded, table.num_rows)
