-- Spans with binary ids and raw uint64 times (TRACE-FORMAT §6). (trace_id, span_id) is the
-- identity; it repeats only for conflicting duplicates, which share a dup_group.
-- Grain: one row per kept span. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.spans (
    span_row                 BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    scope_row                BIGINT NOT NULL,
    resource_row             BIGINT NOT NULL,
    source_id                INTEGER NOT NULL,
    record_index             UINTEGER NOT NULL,
    trace_id                 BLOB NOT NULL,
    span_id                  BLOB NOT NULL,
    parent_span_id           BLOB,
    trace_state              VARCHAR,
    flags                    UINTEGER,
    name                     VARCHAR,
    kind                     INTEGER,
    kind_name_raw            VARCHAR,
    start_time_unix_nano     UBIGINT,
    end_time_unix_nano       UBIGINT,
    start_time               TIMESTAMPTZ,
    end_time                 TIMESTAMPTZ,
    duration_ns              BIGINT,
    status_code              INTEGER,
    status_code_name_raw     VARCHAR,
    status_message           VARCHAR,
    dropped_attributes_count UINTEGER NOT NULL,
    dropped_events_count     UINTEGER NOT NULL,
    dropped_links_count      UINTEGER NOT NULL,
    oi_span_kind             VARCHAR,
    mcp_app_role             VARCHAR,
    content_hash             BLOB NOT NULL,
    json_path                VARCHAR NOT NULL,
    dup_group                BIGINT
);
