-- Items not ingested as data, with their raw JSON (TRACE-FORMAT §5.1: no silent loss).
-- Grain: one row per quarantined record, span, link or attribute. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.quarantine (
    source_id    INTEGER NOT NULL,
    record_index UINTEGER,
    line         UBIGINT,
    byte_offset  UBIGINT,
    json_path    VARCHAR,
    raw_json     VARCHAR NOT NULL,
    codes        VARCHAR[] NOT NULL
);
