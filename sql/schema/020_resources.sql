-- Grain: one row per ResourceSpans envelope. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.resources (
    resource_row             BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    source_id                INTEGER NOT NULL,
    record_index             UINTEGER NOT NULL,
    resource_index           UINTEGER NOT NULL,
    schema_url               VARCHAR,
    dropped_attributes_count UINTEGER NOT NULL
);
