-- Grain: one row per distinct resource (a ResourceSpans' resource identical to a stored one is
-- not stored again: its spans point at the stored row; sql/ingest/100). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.resources (
    resource_row             BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    source_id                INTEGER NOT NULL,
    record_index             UINTEGER NOT NULL,
    resource_index           UINTEGER NOT NULL,
    schema_url               VARCHAR,
    dropped_attributes_count UINTEGER NOT NULL,
    content_hash             BLOB  -- the resource's identity; NULL in rows older than version 4
);
