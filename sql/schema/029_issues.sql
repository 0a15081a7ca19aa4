-- Every problem found while importing accepted sources (TRACE-FORMAT §5.1).
-- Grain: one row per issue (flavour notes aggregated per source with `occurrences`).
CREATE TABLE IF NOT EXISTS core.issues (
    source_id     INTEGER NOT NULL,
    severity      VARCHAR NOT NULL,
    code          VARCHAR NOT NULL,
    record_index  UINTEGER,
    line          UBIGINT,
    byte_offset   UBIGINT,
    json_path     VARCHAR,
    span_row      BIGINT,
    message       VARCHAR NOT NULL,
    value_excerpt VARCHAR,
    hint          VARCHAR NOT NULL,
    occurrences   UINTEGER NOT NULL
);
