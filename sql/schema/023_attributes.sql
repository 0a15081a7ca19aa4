-- Attributes stored long: one row per key per owner, nothing merged (TRACE-FORMAT §6).
-- Grain: one row per (owner_type, owner_row, ordinal). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.attributes (
    owner_type      VARCHAR NOT NULL,
    owner_row       BIGINT NOT NULL,
    ordinal         UINTEGER NOT NULL,
    key             VARCHAR NOT NULL,
    value_type      VARCHAR NOT NULL,
    string_value    VARCHAR,
    int_value       BIGINT,
    double_value    DOUBLE,
    bool_value      BOOLEAN,
    bytes_value     BLOB,
    json_value      VARCHAR,
    large_value_ref BIGINT
);
