"""Arrow schemas of every stored table (TRACE-FORMAT §6, CONTRACT §4–§5), declared as data.

One snake_case name per table, shared by its Arrow schema, its SQL DDL (``sql/schema/``) and
its DuckDB table (schema ``core``). ``STORED_TABLES`` holds the schema of every table the DDL
creates, in DDL order, and ``tests/contract/test_tables.py`` proves the two agree column by
column. Most tables are stored in the shape the code builds; where a stage builds a different
shape (the decoder's batch-local span tables, the evidence adapter's ``trials`` with its
``trial_index``), that shape is declared here too and the stored one derived from it, so each
column is declared once. ``conform()`` validates a table against its schema, because Arrow
does not check ``nullable=False`` on construction.

One module over the ~400-line guide, on purpose: every stored table in one place is what lets
one test hold the DDL against all of them.
"""

from __future__ import annotations

from typing import Final

import pyarrow as pa

# --- column types shared by several tables ---------------------------------------------------

TRACE_ID_BYTES: Final = 16
SPAN_ID_BYTES: Final = 8
TRACE_ID = pa.binary(TRACE_ID_BYTES)
SPAN_ID = pa.binary(SPAN_ID_BYTES)
SHA256 = pa.binary(32)
# Nanoseconds in Arrow; DuckDB's TIMESTAMPTZ keeps microseconds, so the store truncates them
# (the span tables keep the raw nanoseconds beside, in `*_unix_nano`).
TS = pa.timestamp("ns", tz="UTC")
SOURCE_ID = pa.int32()  # core.sources.source_id: INTEGER
# DuckDB's HUGEINT (what `sum` of BIGINTs gives) as Arrow reads it.
HUGEINT = pa.decimal128(38, 0)
INT64_MAX: Final = (1 << 63) - 1  # the largest value of an int64 column

# A string column holding JSON text (DDL type JSON): Arrow's canonical JSON extension, named
# in the field's metadata so pyarrow < 19 (no `pa.json_()`) reads it as a plain string.
JSON_METADATA: Final = {b"ARROW:extension:name": b"arrow.json"}


def _schema(*fields: tuple[str, pa.DataType, bool] | pa.Field) -> pa.Schema:
    return pa.schema(
        [f if isinstance(f, pa.Field) else pa.field(f[0], f[1], nullable=f[2]) for f in fields]
    )


# --- span tables: the decoder's batch shapes (sql/schema/020–029) ----------------------------
# Row ids here are *batch-local* (0-based within one decoded source); the store shifts them to
# store-wide ids when it commits a source (same type), and adds the source's `source_id` (and to
# spans their `dup_group`): see `STORED_TABLES`.

RESOURCES = _schema(
    ("resource_row", pa.int64(), False),
    ("record_index", pa.uint32(), False),
    ("resource_index", pa.uint32(), False),
    ("schema_url", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
)

SCOPES = _schema(
    ("scope_row", pa.int64(), False),
    ("resource_row", pa.int64(), False),
    ("name", pa.string(), True),
    ("version", pa.string(), True),
    ("schema_url", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
)

# The attribute keys whose values the span tables also carry as columns (TRACE-FORMAT §6).
OI_SPAN_KIND: Final = "openinference.span.kind"  # spans.oi_span_kind
MCP_APP_ROLE: Final = "mcp.app.span.role"  # spans.mcp_app_role

SPANS = _schema(
    ("span_row", pa.int64(), False),
    ("scope_row", pa.int64(), False),
    ("resource_row", pa.int64(), False),
    ("record_index", pa.uint32(), False),
    ("trace_id", TRACE_ID, False),
    ("span_id", SPAN_ID, False),
    ("parent_span_id", SPAN_ID, True),
    ("trace_state", pa.string(), True),
    ("flags", pa.uint32(), True),
    ("name", pa.string(), True),
    # int32 rather than §6's int8: unknown enum ints are kept raw and may not fit int8.
    ("kind", pa.int32(), True),
    ("kind_name_raw", pa.string(), True),
    ("start_time_unix_nano", pa.uint64(), True),
    ("end_time_unix_nano", pa.uint64(), True),
    ("start_time", TS, True),
    ("end_time", TS, True),
    ("duration_ns", pa.int64(), True),
    ("status_code", pa.int32(), True),
    ("status_code_name_raw", pa.string(), True),
    ("status_message", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
    ("dropped_events_count", pa.uint32(), False),
    ("dropped_links_count", pa.uint32(), False),
    ("oi_span_kind", pa.string(), True),
    ("mcp_app_role", pa.string(), True),
    ("content_hash", SHA256, False),
    ("json_path", pa.string(), False),
)

ATTRIBUTES = _schema(
    ("owner_type", pa.string(), False),
    ("owner_row", pa.int64(), False),
    ("ordinal", pa.uint32(), False),
    ("key", pa.string(), False),
    ("value_type", pa.string(), False),
    ("string_value", pa.large_string(), True),
    ("int_value", pa.int64(), True),
    ("double_value", pa.float64(), True),
    ("bool_value", pa.bool_(), True),
    ("bytes_value", pa.large_binary(), True),
    ("json_value", pa.large_string(), True),
    ("large_value_ref", pa.int64(), True),
)

EVENTS = _schema(
    ("event_row", pa.int64(), False),
    ("span_row", pa.int64(), False),
    ("ordinal", pa.uint32(), False),
    ("time_unix_nano", pa.uint64(), True),
    ("time", TS, True),
    ("name", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
)

LINKS = _schema(
    ("link_row", pa.int64(), False),
    ("span_row", pa.int64(), False),
    ("ordinal", pa.uint32(), False),
    ("trace_id", TRACE_ID, False),
    ("span_id", SPAN_ID, False),
    ("trace_state", pa.string(), True),
    ("flags", pa.uint32(), True),
    ("dropped_attributes_count", pa.uint32(), False),
)

LARGE_VALUES = _schema(
    ("large_value_ref", pa.int64(), False),
    ("sha256", SHA256, False),
    ("length", pa.uint64(), False),
    ("string_value", pa.large_string(), True),
    ("bytes_value", pa.large_binary(), True),
)

QUARANTINE = _schema(
    ("record_index", pa.uint32(), True),
    ("line", pa.uint64(), True),
    ("byte_offset", pa.uint64(), True),
    ("json_path", pa.string(), True),
    ("raw_json", pa.large_string(), False),
    ("codes", pa.list_(pa.string()), False),
)

UNKNOWN_FIELDS = _schema(
    ("record_index", pa.uint32(), True),
    ("json_path", pa.string(), False),
    ("raw_json", pa.large_string(), False),
)

ISSUES = _schema(
    ("severity", pa.string(), False),
    ("code", pa.string(), False),
    ("record_index", pa.uint32(), True),
    ("line", pa.uint64(), True),
    ("byte_offset", pa.uint64(), True),
    ("json_path", pa.string(), True),
    ("span_row", pa.int64(), True),
    ("message", pa.string(), False),
    ("value_excerpt", pa.string(), True),
    ("hint", pa.string(), False),
    ("occurrences", pa.uint32(), False),
)

# Derived tables (sql/schema/031–033): every row is keyed by trial, chain source and analyzer.
_CHAIN_KEY = (
    ("trial_id", pa.string(), False),
    ("run_id", pa.string(), False),
    ("source", pa.string(), False),  # 'derived' | 'producer'
    ("analyzer_version", pa.int32(), False),
)

STAGE_CHAIN = _schema(
    *_CHAIN_KEY,
    ("stage_index", pa.int8(), False),
    ("stage", pa.string(), False),
    ("state", pa.string(), False),
    ("reason", pa.string(), True),
    ("evidence", pa.string(), True),
)

TRIAL_OUTCOME = _schema(
    *_CHAIN_KEY,
    ("first_failed_stage", pa.string(), True),
    ("failure_category", pa.string(), True),
    ("chain_verified", pa.bool_(), True),
    ("measurements_present", pa.bool_(), False),
    ("measurements_verified", pa.bool_(), True),
    ("measurements_schema_version", pa.int32(), True),
    ("measurements_analyzer_version", pa.int32(), True),
)

STAGE_MEASUREMENTS = _schema(
    *_CHAIN_KEY,
    ("stage_index", pa.int8(), False),
    ("stage", pa.string(), False),
    ("reach", pa.string(), False),
    ("latency_ms", pa.float64(), True),
)

# Per-trial inputs of the funnels' setup tallies and evaluator exclusion (sql/schema/040–041).
SETUP_SIGNALS = _schema(
    ("trial_id", pa.string(), False),
    ("run_id", pa.string(), False),
    ("phase", pa.string(), False),  # SetupPhase
    ("outcome", pa.string(), False),
    ("attribution", pa.string(), True),
    ("egress_verified", pa.bool_(), True),
    ("duration_ms", pa.float64(), True),
)

TRIAL_FLAGS = _schema(
    ("trial_id", pa.string(), False),
    ("run_id", pa.string(), False),
    ("evaluator_errored", pa.bool_(), True),
)

# Tables a decoded source carries, in commit order (owners before what points at them).
SPAN_TABLES: dict[str, pa.Schema] = {
    "resources": RESOURCES,
    "scopes": SCOPES,
    "spans": SPANS,
    "attributes": ATTRIBUTES,
    "events": EVENTS,
    "links": LINKS,
    "large_values": LARGE_VALUES,
    "quarantine": QUARANTINE,
    "unknown_fields": UNKNOWN_FIELDS,
    "issues": ISSUES,
}

# Which column of which table holds a batch-local row id of which owner table.
ROW_ID_COLUMNS: dict[str, dict[str, str]] = {
    "resources": {"resource_row": "resources"},
    "scopes": {"scope_row": "scopes", "resource_row": "resources"},
    "spans": {"span_row": "spans", "scope_row": "scopes", "resource_row": "resources"},
    "events": {"event_row": "events", "span_row": "spans"},
    "links": {"link_row": "links", "span_row": "spans"},
    "large_values": {"large_value_ref": "large_values"},
    "attributes": {"large_value_ref": "large_values"},
    "issues": {"span_row": "spans"},
}

# attributes.owner_row points at the table named by owner_type.
OWNER_TABLES: dict[str, str] = {
    "resource": "resources",
    "scope": "scopes",
    "span": "spans",
    "event": "events",
    "link": "links",
}


# Trial-level issues as the evidence adapter builds them (stored in sql/schema/034, below).
TRIAL_ISSUES = pa.schema(
    [
        pa.field("severity", pa.string(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        pa.field("trace_id", pa.string()),
        pa.field("span_id", pa.string()),
        pa.field("trial_id", pa.string()),
        pa.field("run_id", pa.string()),
        pa.field("key", pa.string()),
        pa.field("message", pa.string(), nullable=False),
        pa.field("hint", pa.string(), nullable=False),
        pa.field("occurrences", pa.int64(), nullable=False),
    ]
)


# The store keeps trial_issues' trace_id first (its place since store version 1, when it held
# BLOBs: sql/migrate/002), its hint nullable and its occurrences UINTEGER; the insert is BY
# NAME (sql/derive/044), so the adapter's order and wider count are taken as they are.
_STORED_TRIAL_ISSUES = pa.schema(
    [
        TRIAL_ISSUES.field("trace_id"),
        *(
            f.with_nullable(True)
            if f.name == "hint"
            else f.with_type(pa.uint32())
            if f.name == "occurrences"
            else f
            for f in TRIAL_ISSUES
            if f.name != "trace_id"
        ),
    ]
)

# --- trials (sql/schema/030) and the adapter's other table --------------------------------

# One row per trial found in the store's traces (TRACE-FORMAT §3.7, §3.8). Identity columns
# are null when the export did not carry them: absent, never equal (CONTRACT §5.11).
TRIALS = _schema(
    ("trial_id", pa.string(), False),
    ("trace_id", TRACE_ID, False),
    ("run_id", pa.string(), False),
    ("suite_id", pa.string(), True),
    ("case_id", pa.string(), True),
    ("case_key", pa.string(), True),
    ("case_title", pa.string(), True),
    ("intent", pa.string(), True),
    ("provider", pa.string(), True),
    ("model", pa.string(), True),
    ("host_key", pa.string(), True),
    ("host_name", pa.string(), True),
    ("execution_engine", pa.string(), True),
    ("status", pa.string(), True),
    ("repetition", pa.int32(), True),
    ("iteration_number", pa.int32(), True),
    ("is_negative", pa.bool_(), True),
    ("input_tokens", pa.int64(), True),
    ("output_tokens", pa.int64(), True),
    ("duration_ms", pa.float64(), True),
    ("started_at", TS, True),
    ("ended_at", TS, True),
    ("run_group_id", pa.string(), True),
    ("config_revision", pa.string(), True),
    ("case_set_fingerprint", pa.string(), True),
    ("run_status", pa.string(), True),
    ("materialization_state", pa.string(), True),
    ("trials_expected", pa.int32(), True),
    ("measurement_unit", pa.string(), True),
    ("run_completed_at", TS, True),
    ("contract_version", pa.int32(), True),
    ("producer_analyzer_version", pa.int32(), True),
    ("redacted", pa.bool_(), True),
    ("evidence_incomplete", pa.bool_(), False),
    ("integrity_codes", pa.list_(pa.string()), False),
    ("exclusion_class", pa.string(), True),
    ("root_span_id", pa.string(), False),
    ("source_id", SOURCE_ID, False),
    ("contract", pa.bool_(), False),
    ("project_id", pa.string(), True),
    ("run_number", pa.int64(), True),
    ("variant_key", pa.string(), True),
    ("trial_result", pa.string(), True),
    ("session_id", pa.string(), True),
)

# `trials` as the evidence adapter emits it: the stored columns after its own row index, which
# `tool_calls` and the derivation inputs join on; the store drops it (sql/derive/040).
EVIDENCE_TRIALS = TRIALS.insert(0, pa.field("trial_index", pa.int64(), nullable=False))

# One row per logical tool call (TRACE-FORMAT §2.4), in trial then call order. Not stored: the
# adapter's input to the derivation.
TOOL_CALLS = _schema(
    ("trial_index", pa.int64(), False),
    ("trial_id", pa.string(), True),
    ("call_id", pa.string(), True),
    ("tool_name", pa.string(), True),
    ("requested", pa.bool_(), False),
    ("executed", pa.bool_(), False),
    ("outcome", pa.string(), True),
    ("status", pa.string(), True),
    ("span_id", pa.string(), True),
    ("span_count", pa.int32(), False),
    ("mcp_error_code", pa.int64(), True),
    ("prompt_index", pa.int64(), True),
)

# --- the store's own tables (sql/schema/001, 010) -------------------------------------------

META = _schema(
    ("key", pa.string(), False),  # PRIMARY KEY
    ("value", pa.string(), False),
)

# The import ledger (TRACE-FORMAT §6 `sources`, accounting of §5.1): one row per accepted
# source, written from parameters (sql/ingest/990), not from an Arrow table.
SOURCES = _schema(
    ("source_id", SOURCE_ID, False),  # PRIMARY KEY
    ("import_id", pa.int32(), False),
    ("path", pa.string(), False),
    ("sha256", pa.string(), False),  # lower-case hex (large_values.sha256 is the raw bytes)
    ("bytes_raw", pa.uint64(), False),
    ("bytes_decoded", pa.uint64(), False),
    ("compression", pa.string(), False),
    ("framing", pa.string(), False),
    ("encoding_flavor", pa.string(), False),
    ("status", pa.string(), False),
    ("records_read", pa.uint32(), False),
    ("records_ingested", pa.uint32(), False),
    ("records_other_signal", pa.uint32(), False),
    ("records_quarantined", pa.uint32(), False),
    ("spans_read", pa.uint64(), False),
    ("span_rows", pa.uint64(), False),
    ("spans_quarantined", pa.uint64(), False),
    ("spans_deduplicated", pa.uint64(), False),
    ("attributes_read", pa.uint64(), False),
    ("attribute_rows", pa.uint64(), False),
    ("attributes_quarantined", pa.uint64(), False),
    ("attributes_deduplicated", pa.uint64(), False),
    ("imported_at", TS, False),
)

# --- materialized tables (sql/schema/042–046), filled by sql/analytics ------------------------

# Run-level facts gathered from a run's trials (CONTRACT §5.1, §5.10). Token sums are HUGEINT
# (DuckDB's `sum` of the trials' BIGINTs).
RUN_SUMMARY = _schema(
    ("run_id", pa.string(), False),
    ("suite_id", pa.string(), True),
    ("run_group_id", pa.string(), True),
    ("config_revision", pa.string(), True),
    ("case_set_fingerprint", pa.string(), True),
    ("run_status", pa.string(), True),
    ("run_terminal", pa.bool_(), False),
    ("exported_materialization_state", pa.string(), True),
    ("trials_expected", pa.int32(), True),
    ("trial_rows", pa.int64(), False),
    ("started_at", TS, True),
    ("completed_at", TS, True),
    ("completed_at_exported", pa.bool_(), False),
    ("input_tokens", HUGEINT, True),
    ("output_tokens", HUGEINT, True),
    ("duration_ms", pa.float64(), True),
    ("trials_duration_ms", pa.float64(), True),
    ("conflicting_identity", pa.list_(pa.string()), False),
    ("document_blocker", pa.string(), True),
)

# Every analytics row is keyed by its document: run, chain source, reader analyzer version.
_DOCUMENT_KEY = (
    ("run_id", pa.string(), False),
    ("chain_source", pa.string(), False),  # 'derived' | 'producer'
    ("analyzer_version", pa.int32(), False),
)

# The slice a per-slice row belongs to (CONTRACT §5.2): index 0 is `overall`.
_SLICE_KEY = (
    *_DOCUMENT_KEY,
    ("slice_index", pa.int32(), False),
    ("slice_dimension", pa.string(), False),
    ("intent", pa.string(), True),
    ("provider", pa.string(), True),
    ("model", pa.string(), True),
    ("host_key", pa.string(), True),
)

# Trial-level exclusion counts per class (CONTRACT §5.5).
_EXCLUDED = (
    ("excluded_lifecycle", pa.int64(), False),
    ("excluded_integrity", pa.int64(), False),
    ("excluded_version", pa.int64(), False),
)


def _counted(*item: pa.Field) -> pa.DataType:
    """A list of (item…, count) structs: a tally in vocabulary order, zero counts omitted."""
    return pa.list_(pa.struct([*item, pa.field("count", pa.int64())]))


ANALYTICS_RUNS = _schema(
    *_DOCUMENT_KEY,
    ("stage_analyzer_version", pa.int32(), False),
    ("source_stage_analyzer_versions", pa.list_(pa.int32()), True),
    ("measurements_schema_version", pa.int32(), False),
    ("source_measurements_schema_versions", pa.list_(pa.int32()), True),
    ("materialization_state", pa.string(), False),
    ("run_completed_at", TS, True),
    ("included_trials", pa.int64(), False),
    ("total_trials", pa.int64(), False),
    *_EXCLUDED,
    ("excluded_trial_detail", _counted(pa.field("detail", pa.string())), False),
    ("created_at", TS, False),
    ("updated_at", TS, False),
)

# The stage analytics documents verbatim (CONTRACT §5, §5.12).
ANALYTICS_DOCUMENTS = _schema(
    *_DOCUMENT_KEY,
    pa.field("document", pa.string(), nullable=False, metadata=JSON_METADATA),
)

ANALYTICS_SLICES = _schema(
    *_SLICE_KEY,
    ("host_name", pa.string(), True),
    ("execution_engine", pa.string(), True),
    ("included_trials", pa.int64(), False),
    *_EXCLUDED,
    ("failure_categories", _counted(pa.field("category", pa.string())), False),
)

# Per-stage tallies of each retained slice (CONTRACT §5.3), counts only.
STAGE_FUNNEL = _schema(
    *_SLICE_KEY,
    ("stage_index", pa.int8(), False),
    ("stage", pa.string(), False),
    ("applicable", pa.int64(), False),
    ("reached", pa.int64(), False),
    ("not_reached", pa.int64(), False),
    ("reach_unknown", pa.int64(), False),
    ("measured", pa.int64(), False),
    ("passed", pa.int64(), False),
    ("failed", pa.int64(), False),
    ("not_measured", pa.int64(), False),
    ("not_applicable", pa.int64(), False),
    (
        "reasons",  # in the 29-reason vocabulary order
        _counted(pa.field("reason_index", pa.int8()), pa.field("reason", pa.string())),
        False,
    ),
    ("latency_count", pa.int64(), False),
    ("latency_total_ms", pa.float64(), True),
    ("latency_min_ms", pa.float64(), True),
    ("latency_max_ms", pa.float64(), True),
)

# --- every stored table ---------------------------------------------------------------------

_SOURCE_ID_FIELD = pa.field("source_id", SOURCE_ID, nullable=False)


def _stored_span(batch: pa.Schema, *, source_id_after: str | None) -> pa.Schema:
    """A span table as the store keeps it: ``batch`` with the committing source's id inserted
    after the column ``source_id_after`` (first when None)."""
    at = 0 if source_id_after is None else batch.get_field_index(source_id_after) + 1
    return batch.insert(at, _SOURCE_ID_FIELD)


# The stored schema of every table in `core`, in DDL order (sql/schema/NNN_<name>.sql).
STORED_TABLES: dict[str, pa.Schema] = {
    "meta": META,
    "sources": SOURCES,
    "resources": _stored_span(RESOURCES, source_id_after="resource_row"),
    "scopes": SCOPES,
    # `dup_group`: the group conflicting duplicates of one (trace_id, span_id) share
    # (sql/ingest/140–150); NULL for a span without one.
    "spans": _stored_span(SPANS, source_id_after="resource_row").append(
        pa.field("dup_group", pa.int64())
    ),
    "attributes": ATTRIBUTES,
    "events": EVENTS,
    "links": LINKS,
    "large_values": LARGE_VALUES,
    "quarantine": _stored_span(QUARANTINE, source_id_after=None),
    "unknown_fields": _stored_span(UNKNOWN_FIELDS, source_id_after=None),
    "issues": _stored_span(ISSUES, source_id_after=None),
    "trials": TRIALS,
    "stage_chain": STAGE_CHAIN,
    "trial_outcome": TRIAL_OUTCOME,
    "stage_measurements": STAGE_MEASUREMENTS,
    "trial_issues": _STORED_TRIAL_ISSUES,
    "setup_signals": SETUP_SIGNALS,
    "trial_flags": TRIAL_FLAGS,
    "run_summary": RUN_SUMMARY,
    "analytics_runs": ANALYTICS_RUNS,
    "analytics_documents": ANALYTICS_DOCUMENTS,
    "analytics_slices": ANALYTICS_SLICES,
    "stage_funnel": STAGE_FUNNEL,
}


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Cast ``table`` to ``schema`` and enforce non-nullable columns.

    Raises:
        ValueError: naming the column when a non-nullable column holds nulls.
    """
    table = table.select(schema.names).cast(schema)
    for fld in schema:
        if not fld.nullable and table.column(fld.name).null_count:
            raise ValueError(f"column {fld.name!r} is declared non-nullable but holds nulls")
    return table
