"""The one issue vocabulary of every stage: codes, severities, hints (TRACE-FORMAT §1.2, §1.4,
§5.2; CONTRACT §9 Q6), and the source issue row.

Every problem becomes one row: severity, code, where (record, line, byte offset, JSON path),
the offending value (≤ 200 chars) and a one-line hint. The prefix of a code is its severity
(E_, W_, I_). *Flavour* notes that would repeat for every span (snake_case keys, base64 ids,
enum names, …) are ``AGGREGATED``: one row per source with an ``occurrences`` count.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import orjson
import pyarrow as pa

from valuechain.contract.tables import ISSUES, conform

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
    E_RECORD_TOO_DEEP = "E_RECORD_TOO_DEEP"
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
    W_DUPLICATE_JSON_KEY = "W_DUPLICATE_JSON_KEY"
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
    # trial level (the evidence adapter; TRACE-FORMAT §5.2, CONTRACT §9 Q6)
    W_TRIAL_ROOT_MISSING = "W_TRIAL_ROOT_MISSING"
    W_MULTIPLE_TRIAL_ROOTS = "W_MULTIPLE_TRIAL_ROOTS"
    W_MULTIPLE_ROOTS = "W_MULTIPLE_ROOTS"
    W_ORPHAN_SPAN = "W_ORPHAN_SPAN"
    I_CHILD_OUTSIDE_PARENT = "I_CHILD_OUTSIDE_PARENT"
    W_CONTRACT_TYPE = "W_CONTRACT_TYPE"
    W_UNKNOWN_CONTRACT_KEY = "W_UNKNOWN_CONTRACT_KEY"
    W_VERSION_AHEAD = "W_VERSION_AHEAD"
    W_RUN_INCOMPLETE_IN_EXPORT = "W_RUN_INCOMPLETE_IN_EXPORT"
    W_TRIAL_ID_CONFLICT = "W_TRIAL_ID_CONFLICT"
    W_TRANSPORT_ERROR_WITHOUT_CODE = "W_TRANSPORT_ERROR_WITHOUT_CODE"
    W_EVIDENCE_SPAN_UNRESOLVED = "W_EVIDENCE_SPAN_UNRESOLVED"
    W_CHAIN_INVALID = "W_CHAIN_INVALID"
    W_UNKNOWN_AUTHORED_MODE = "W_UNKNOWN_AUTHORED_MODE"
    E_PARENT_CYCLE = "E_PARENT_CYCLE"

    @property
    def severity(self) -> Severity:
        return {"E": Severity.ERROR, "W": Severity.WARNING, "I": Severity.INFO}[self.value[0]]


# Source-level hints: what the issue means for the imported file.
HINTS: Final[dict[Code, str]] = {
    Code.E_NOT_OTLP: "export OTLP/JSON (resourceSpans) from the producer, or convert first",
    Code.E_NO_TRACES: "the file holds other signals only; point valuechain at the trace export",
    Code.E_TRUNCATED_JSON: "re-download the export, or import with --salvage to keep whole spans",
    Code.E_TRUNCATED_RECORD: "normal for a collector file still being written; re-import later",
    Code.E_INVALID_RECORD: (
        "this record is quarantined with its raw text; the source's other records are read"
    ),
    Code.E_TRUNCATED_COMPRESSION: (
        "the compressed data ends early (a cut copy, or a file still being written); "
        "re-copy the file or re-import it later"
    ),
    Code.E_TOO_LARGE: "raise the cap with --max-decompressed-bytes if the file is trusted",
    Code.E_UNREADABLE: "check the path and permissions",
    Code.E_INVALID_PROTO_RECORD: "this protobuf record is quarantined with its byte range",
    Code.E_RECORD_TOO_DEEP: (
        "the record nests deeper than any OTLP export does; it is quarantined with its raw "
        "text; the source's other records are read"
    ),
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
    Code.W_DUPLICATE_JSON_KEY: (
        "a key repeated in one JSON object: the last value was read, as JSON readers do; "
        "fix the producer's JSON writer"
    ),
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

# Trial-level hints: what the issue means for the trial it is raised on. A code raised at
# both levels (W_DUPLICATE_CONFLICT) has a hint for each: the consequence differs.
TRIAL_HINTS: Final[dict[Code, str]] = {
    Code.W_TRIAL_ROOT_MISSING: (
        "the trace carries mcp.app.trial.* keys but no span with mcp.app.span.role = trial; "
        "no trial was formed"
    ),
    Code.W_MULTIPLE_TRIAL_ROOTS: (
        "a trial is one trace with one trial root; both trials are integrity-excluded"
    ),
    Code.W_MULTIPLE_ROOTS: "the trial takes the earliest root; the other roots are kept",
    Code.W_ORPHAN_SPAN: (
        "the parent span was not exported (yet); import the file holding it and the trace is "
        "derived again"
    ),
    Code.I_CHILD_OUTSIDE_PARENT: (
        "usually clocks of different hosts or millisecond rounding; latency uses the times as sent"
    ),
    Code.W_CONTRACT_TYPE: (
        "the typed value reads as absent; a missing required key integrity-excludes the trial"
    ),
    Code.W_UNKNOWN_CONTRACT_KEY: (
        "kept verbatim and interpreted by nobody; check the producer's contract version"
    ),
    Code.W_VERSION_AHEAD: "upgrade valuechain; trials are version-excluded and never coerced",
    Code.W_RUN_INCOMPLETE_IN_EXPORT: (
        "import the rest of the run (another export page or file) before reading its funnel"
    ),
    Code.W_TRIAL_ID_CONFLICT: (
        "one trial id in several traces: all of them are integrity-excluded"
    ),
    Code.W_TRANSPORT_ERROR_WITHOUT_CODE: (
        "the exporter must put the SDK code (-32000/-32001) on transport errors; "
        "without one the failure reads as a domain error"
    ),
    Code.W_EVIDENCE_SPAN_UNRESOLVED: (
        "the persisted chain cites a span the export does not carry; "
        "it is not used to upgrade reach"
    ),
    Code.W_CHAIN_INVALID: (
        "the producer's chain and measurements are stored as sent and never repaired; a chain "
        "failing CONTRACT §2.1 integrity-excludes the trial (chainUnverified), measurements "
        "disagreeing with it exclude it from the producer's funnels (measurementsInvalid): "
        "fix the producer's exporter"
    ),
    Code.W_UNKNOWN_AUTHORED_MODE: (
        "mode must be model_driven or model_free; the authored case was inferred instead "
        "and the trial is integrity-excluded"
    ),
    Code.W_DUPLICATE_CONFLICT: (
        "the trace holds conflicting copies of a span; its trials are integrity-excluded"
    ),
    Code.E_PARENT_CYCLE: (
        "the span tree has a cycle; the trial takes the earliest span as root and is "
        "integrity-excluded"
    ),
}

# Codes that, on a trial, put it in exclusion class `version` rather than `integrity`.
VERSION_CODES: Final = frozenset({Code.W_VERSION_AHEAD})

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
    column: int | None = None  # of a value inside a multi-line document (not stored)

    @property
    def severity(self) -> Severity:
        return self.code.severity

    @property
    def hint(self) -> str:
        return HINTS[self.code]


def issues_table(issues: list[Issue]) -> pa.Table:
    """The ``issues`` rows of a source's issues (``contract.tables.ISSUES``)."""
    rows = {name: [] for name in ISSUES.names}  # type: dict[str, list[Any]]
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
    return conform(pa.table(rows, schema=ISSUES), ISSUES)
