"""Arrow schemas of the span tables (TRACE-FORMAT §6), declared as data.

One snake_case name per table, shared by its Arrow schema, its SQL DDL (``sql/schema/``) and
its DuckDB table. Row ids here are *batch-local* (0-based within one decoded source); the
store shifts them to store-wide ids when it commits a source. ``conform()`` validates a table
against its schema, because Arrow does not check ``nullable=False`` on construction.
"""

from __future__ import annotations

import pyarrow as pa

TRACE_ID = pa.binary(16)
SPAN_ID = pa.binary(8)
TS = pa.timestamp("ns", tz="UTC")


def _schema(*fields: tuple[str, pa.DataType, bool]) -> pa.Schema:
    return pa.schema([pa.field(name, dtype, nullable=nullable) for name, dtype, nullable in fields])


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
    ("content_hash", pa.binary(32), False),
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
    ("sha256", pa.binary(32), False),
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


# Trial-level issues of the evidence adapter (sql/schema/034_trial_issues.sql).
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
