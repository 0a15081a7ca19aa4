-- Grain: one row per span event. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.events (
    event_row                BIGINT NOT NULL,  -- unique by construction, no key (sql/migrate/003)
    span_row                 BIGINT NOT NULL,
    ordinal                  UINTEGER NOT NULL,
    time_unix_nano           UBIGINT,
    time                     TIMESTAMPTZ,
    name                     VARCHAR,
    dropped_attributes_count UINTEGER NOT NULL
);
