"""The ingest issue vocabulary (TRACE-FORMAT §1.2, §1.4, §5.2) and the per-source issue log.

Every problem becomes one row: severity, code, where (record, line, byte offset, JSON path),
the offending value (≤ 200 chars) and a one-line hint. Per-item problems get a row each;
*flavour* notes that would repeat for every span (snake_case keys, base64 ids, enum names, …)
get one row per source with an ``occurrences`` count, so a million-span proto3-generic file
does not produce a million identical info rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson

EXCERPT_CHARS = 200


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(StrEnum):
    """Issue codes; the prefix is the severity (E_, W_, I_)."""

    # source-level rejections and record-level errors
    E_NOT_OTLP = "E_NOT_OTLP"
    E_NO_TRACES = "E_NO_TRACES"
    E_TRUNCATED_JSON = "E_TRUNCATED_JSON"
    E_TRUNCATED_RECORD = "E_TRUNCATED_RECORD"
    E_INVALID_RECORD = "E_INVALID_RECORD"
    E_TRUNCATED_COMPRESSION = "E_TRUNCATED_COMPRESSION"
    E_TOO_LARGE = "E_TOO_LARGE"
    E_UNREADABLE = "E_UNREADABLE"
    E_INVALID_PROTO_RECORD = "E_INVALID_PROTO_RECORD"
    # item errors (the item is quarantined)
    E_MISSING_ID = "E_MISSING_ID"
    E_ZERO_ID = "E_ZERO_ID"
    E_BAD_ID_ENCODING = "E_BAD_ID_ENCODING"
    E_TOO_DEEP = "E_TOO_DEEP"
    # warnings: kept, but something is off
    W_LEGACY_IL_SPANS = "W_LEGACY_IL_SPANS"
    W_ENVELOPE_UNWRAPPED = "W_ENVELOPE_UNWRAPPED"
    W_MIXED_ID_ENCODING = "W_MIXED_ID_ENCODING"
    W_ZERO_PARENT = "W_ZERO_PARENT"
    W_UNKNOWN_FIELD = "W_UNKNOWN_FIELD"
    W_MULTIPLE_VARIANTS = "W_MULTIPLE_VARIANTS"
    W_INT_OUT_OF_RANGE = "W_INT_OUT_OF_RANGE"
    W_INVALID_VALUE = "W_INVALID_VALUE"
    W_UNKNOWN_ENUM = "W_UNKNOWN_ENUM"
    W_MISSING_TIME = "W_MISSING_TIME"
    W_TIME_OUT_OF_RANGE = "W_TIME_OUT_OF_RANGE"
    W_NEGATIVE_DURATION = "W_NEGATIVE_DURATION"
    W_DUPLICATE_ATTRIBUTE_KEY = "W_DUPLICATE_ATTRIBUTE_KEY"
    W_DUPLICATE_CONFLICT = "W_DUPLICATE_CONFLICT"
    W_DROPPED_AT_SOURCE = "W_DROPPED_AT_SOURCE"
    W_INVALID_UTF8 = "W_INVALID_UTF8"
    W_NONSTANDARD_JSON = "W_NONSTANDARD_JSON"
    # info: accepted non-canonical constructs and normal-but-counted facts
    I_SNAKE_CASE_KEYS = "I_SNAKE_CASE_KEYS"
    I_BASE64_IDS = "I_BASE64_IDS"
    I_ENUM_NAMES = "I_ENUM_NAMES"
    I_NUMERIC_INT64 = "I_NUMERIC_INT64"
    I_OTHER_SIGNAL = "I_OTHER_SIGNAL"
    I_EMPTY_ENVELOPE = "I_EMPTY_ENVELOPE"
    I_DUPLICATE_IDENTICAL = "I_DUPLICATE_IDENTICAL"
    I_LARGE_VALUE = "I_LARGE_VALUE"

    @property
    def severity(self) -> Severity:
        return {"E": Severity.ERROR, "W": Severity.WARNING, "I": Severity.INFO}[self.value[0]]


HINTS: dict[Code, str] = {
    Code.E_NOT_OTLP: "export OTLP/JSON (resourceSpans) from the producer, or convert first",
    Code.E_NO_TRACES: "the file holds other signals only; point valuechain at the trace export",
    Code.E_TRUNCATED_JSON: "re-download the export, or import with --salvage to keep whole spans",
    Code.E_TRUNCATED_RECORD: "normal for a collector file still being written; re-import later",
    Code.E_INVALID_RECORD: "this record is quarantined; the other records were imported",
    Code.E_TRUNCATED_COMPRESSION: "the compressed stream ends early; re-copy the file",
    Code.E_TOO_LARGE: "raise the cap with --max-decompressed-bytes if the file is trusted",
    Code.E_UNREADABLE: "check the path and permissions",
    Code.E_INVALID_PROTO_RECORD: "this protobuf record is quarantined with its byte range",
    Code.E_MISSING_ID: "every span needs a traceId and a spanId; the span is quarantined",
    Code.E_ZERO_ID: "all-zero ids are invalid in OTLP; the span is quarantined",
    Code.E_BAD_ID_ENCODING: "ids are 32/16 hex characters, or base64 of 16/8 bytes",
    Code.E_TOO_DEEP: "nesting deeper than 64 levels; the attribute is quarantined",
    Code.W_LEGACY_IL_SPANS: "instrumentationLibrarySpans was removed in OTLP 0.19; upgrade the SDK",
    Code.W_ENVELOPE_UNWRAPPED: "the export was wrapped by an API envelope; the spans were read",
    Code.W_MIXED_ID_ENCODING: "one file mixes hex and base64 ids; check the producer",
    Code.W_ZERO_PARENT: "an all-zero parentSpanId is read as a root span",
    Code.W_UNKNOWN_FIELD: "unknown fields are ignored per OTLP; raw JSON kept in unknown_fields",
    Code.W_MULTIPLE_VARIANTS: "an AnyValue carries one variant; the first one was kept",
    Code.W_INT_OUT_OF_RANGE: "the raw text is kept in json_value",
    Code.W_INVALID_VALUE: "the value does not fit its field; the raw JSON is kept",
    Code.W_UNKNOWN_ENUM: "kept as the raw value; check the producer's OTLP version",
    Code.W_MISSING_TIME: "times are unknown for this item; latency cannot use it",
    Code.W_TIME_OUT_OF_RANGE: "the raw uint64 is kept; the timestamp column is null",
    Code.W_NEGATIVE_DURATION: "clock skew: raw times kept, duration is negative",
    Code.W_DUPLICATE_ATTRIBUTE_KEY: "all values kept in order; typed views use the first",
    Code.W_DUPLICATE_CONFLICT: "the same span id arrived with different content; all kept",
    Code.W_DROPPED_AT_SOURCE: "the producer dropped data; evidence may be incomplete",
    Code.W_INVALID_UTF8: "stored with U+FFFD replacement characters",
    Code.W_NONSTANDARD_JSON: "bare NaN/Infinity tokens are not JSON; read as floats",
    Code.I_SNAKE_CASE_KEYS: "generic proto3 JSON; OTLP/JSON uses lowerCamelCase keys",
    Code.I_BASE64_IDS: "generic proto3 JSON; OTLP/JSON uses hex ids",
    Code.I_ENUM_NAMES: "generic proto3 JSON; OTLP/JSON uses integer enums",
    Code.I_NUMERIC_INT64: "64-bit integers as JSON numbers may have lost precision upstream",
    Code.I_OTHER_SIGNAL: "metrics, logs and profiles are skipped",
    Code.I_EMPTY_ENVELOPE: "envelopes with no spans are ignored",
    Code.I_DUPLICATE_IDENTICAL: "identical re-sent spans are kept once",
    Code.I_LARGE_VALUE: "the full value is in large_values; the attribute row holds a stub",
}

# Flavour notes: aggregated to one row per source with an occurrence count.
AGGREGATED: frozenset[Code] = frozenset(
    {
        Code.I_SNAKE_CASE_KEYS,
        Code.I_BASE64_IDS,
        Code.I_ENUM_NAMES,
        Code.I_NUMERIC_INT64,
        Code.I_OTHER_SIGNAL,
        Code.I_EMPTY_ENVELOPE,
        Code.W_LEGACY_IL_SPANS,
        Code.W_ENVELOPE_UNWRAPPED,
        Code.W_NONSTANDARD_JSON,
        Code.I_DUPLICATE_IDENTICAL,
    }
)


def excerpt(value: Any) -> str | None:
    """The offending value as text, truncated to 200 characters."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value
    else:
        try:
            text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:
            text = repr(value)
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


@dataclass(slots=True)
class Issue:
    code: Code
    message: str
    record_index: int | None = None
    line: int | None = None
    byte_offset: int | None = None
    json_path: str | None = None
    value_excerpt: str | None = None
    span_row: int | None = None
    occurrences: int = 1

    @property
    def severity(self) -> Severity:
        return self.code.severity

    @property
    def hint(self) -> str:
        return HINTS[self.code]


@dataclass(slots=True)
class Where:
    """Where the record being decoded sits in its source."""

    record_index: int | None = None
    line: int | None = None
    byte_offset: int | None = None


@dataclass(slots=True)
class IssueLog:
    """Issues of one source, in the order they were found."""

    issues: list[Issue] = field(default_factory=list)
    _aggregated: dict[Code, Issue] = field(default_factory=dict)

    def add(
        self,
        code: Code,
        message: str,
        where: Where,
        json_path: str | None = None,
        value: Any = None,
        span_row: int | None = None,
    ) -> None:
        if code in AGGREGATED:
            first = self._aggregated.get(code)
            if first is not None:
                first.occurrences += 1
                return
        issue = Issue(
            code,
            message,
            where.record_index,
            where.line,
            where.byte_offset,
            json_path,
            excerpt(value),
            span_row,
        )
        if code in AGGREGATED:
            self._aggregated[code] = issue
        self.issues.append(issue)

    def count(self, code: Code) -> int:
        return sum(i.occurrences for i in self.issues if i.code is code)

    def has_errors(self) -> bool:
        return any(i.severity is Severity.ERROR for i in self.issues)
