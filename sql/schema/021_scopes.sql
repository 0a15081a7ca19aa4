-- Grain: one row per ScopeSpans envelope. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.scopes (
    scope_row                BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    resource_row             BIGINT NOT NULL,
    name                     VARCHAR,
    version                  VARCHAR,
    schema_url               VARCHAR,
    dropped_attributes_count UINTEGER NOT NULL
);
