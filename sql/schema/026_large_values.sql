-- Attribute values above the large-value threshold, kept whole (TRACE-FORMAT §5.2 I_LARGE_VALUE).
-- Grain: one row per large value. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.large_values (
    large_value_ref BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    sha256          BLOB NOT NULL,
    length          UBIGINT NOT NULL,
    string_value    VARCHAR,
    bytes_value     BLOB
);
