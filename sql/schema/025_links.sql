-- Grain: one row per span link. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.links (
    link_row                 BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    span_row                 BIGINT NOT NULL,
    ordinal                  UINTEGER NOT NULL,
    trace_id                 BLOB NOT NULL,
    span_id                  BLOB NOT NULL,
    trace_state              VARCHAR,
    flags                    UINTEGER,
    dropped_attributes_count UINTEGER NOT NULL
);
