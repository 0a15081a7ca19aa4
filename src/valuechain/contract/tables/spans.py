"""The span tables the decoder builds (TRACE-FORMAT §6, sql/schema/020–029), and their stored forms.

Declared in the shape a decoded source carries them (``SPAN_TABLES``), with batch-local row
ids, because that is what the decoder builds and conforms to; the store's forms
(``STORED_SPAN_TABLES``) are derived from them, so each column is declared once.
``ROW_ID_COLUMNS`` and ``OWNER_TABLES`` name the row ids the store shifts when it commits.
"""

from __future__ import annotations

from typing import Final

import pyarrow as pa

from valuechain.contract.tables.types import SHA256, SOURCE_ID, SPAN_ID, TRACE_ID, TS, table_schema

# Row ids here are *batch-local* (0-based within one decoded source); the store shifts them to
# store-wide ids when it commits a source (same type), and adds the source's `source_id` (and to
# spans their `dup_group`): see `STORED_SPAN_TABLES`.

RESOURCES = table_schema(
    ("resource_row", pa.int64(), False),
    ("record_index", pa.uint32(), False),
    ("resource_index", pa.uint32(), False),
    ("schema_url", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
    # what makes two resources one (ingest.otlp.canonical): each is stored once. Null only in
    # rows stored before schema version 4, which nothing later is compared with.
    ("content_hash", SHA256, True),
)

SCOPES = table_schema(
    ("scope_row", pa.int64(), False),
    ("resource_row", pa.int64(), False),
    ("name", pa.string(), True),
    ("version", pa.string(), True),
    ("schema_url", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
    ("content_hash", SHA256, True),  # as for resources
)

# The attribute keys whose values the span tables also carry as columns (TRACE-FORMAT §6).
OI_SPAN_KIND: Final = "openinference.span.kind"  # spans.oi_span_kind
MCP_APP_ROLE: Final = "mcp.app.span.role"  # spans.mcp_app_role

SPANS = table_schema(
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

ATTRIBUTES = table_schema(
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

EVENTS = table_schema(
    ("event_row", pa.int64(), False),
    ("span_row", pa.int64(), False),
    ("ordinal", pa.uint32(), False),
    ("time_unix_nano", pa.uint64(), True),
    ("time", TS, True),
    ("name", pa.string(), True),
    ("dropped_attributes_count", pa.uint32(), False),
)

LINKS = table_schema(
    ("link_row", pa.int64(), False),
    ("span_row", pa.int64(), False),
    ("ordinal", pa.uint32(), False),
    ("trace_id", TRACE_ID, False),
    ("span_id", SPAN_ID, False),
    ("trace_state", pa.string(), True),
    ("flags", pa.uint32(), True),
    ("dropped_attributes_count", pa.uint32(), False),
)

LARGE_VALUES = table_schema(
    ("large_value_ref", pa.int64(), False),
    ("sha256", SHA256, False),
    ("length", pa.uint64(), False),
    ("string_value", pa.large_string(), True),
    ("bytes_value", pa.large_binary(), True),
)

QUARANTINE = table_schema(
    ("record_index", pa.uint32(), True),
    ("line", pa.uint64(), True),
    ("byte_offset", pa.uint64(), True),
    ("json_path", pa.string(), True),
    ("raw_json", pa.large_string(), False),
    ("codes", pa.list_(pa.string()), False),
)

UNKNOWN_FIELDS = table_schema(
    ("record_index", pa.uint32(), True),
    ("json_path", pa.string(), False),
    ("raw_json", pa.large_string(), False),
)

ISSUES = table_schema(
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

_SOURCE_ID_FIELD = pa.field("source_id", SOURCE_ID, nullable=False)


def _stored_span(batch: pa.Schema, *, source_id_after: str | None) -> pa.Schema:
    """A span table as the store keeps it: ``batch`` with the committing source's id inserted
    after the column ``source_id_after`` (first when None)."""
    at = 0 if source_id_after is None else batch.get_field_index(source_id_after) + 1
    return batch.insert(at, _SOURCE_ID_FIELD)


# The span tables as `core` stores them, in DDL order (sql/schema/020–029).
STORED_SPAN_TABLES: dict[str, pa.Schema] = {
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
}
