-- Unknown JSON fields, ignored per the OTLP rule but kept raw.
-- Grain: one row per unknown field occurrence. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.unknown_fields (
    source_id    INTEGER NOT NULL,
    record_index UINTEGER,
    json_path    VARCHAR NOT NULL,
    raw_json     VARCHAR NOT NULL
);
