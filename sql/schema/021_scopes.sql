-- Grain: one row per distinct scope of a resource (as for resources; sql/ingest/101).
-- Reads: nothing.
CREATE TABLE IF NOT EXISTS core.scopes (
    scope_row                BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    resource_row             BIGINT NOT NULL,
    name                     VARCHAR,
    version                  VARCHAR,
    schema_url               VARCHAR,
    dropped_attributes_count UINTEGER NOT NULL,
    content_hash             BLOB  -- the scope's identity; NULL in rows older than version 4
);
