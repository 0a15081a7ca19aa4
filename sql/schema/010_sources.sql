-- The import ledger (TRACE-FORMAT §6 `sources`): one row per accepted source, with the
-- accounting of §5.1. Rejected sources are never recorded: a rejection leaves the store as it was.
-- Grain: one row per source_id. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.sources (
    source_id               INTEGER PRIMARY KEY,
    import_id               INTEGER NOT NULL,
    path                    VARCHAR NOT NULL,
    sha256                  VARCHAR NOT NULL UNIQUE,
    bytes_raw               UBIGINT NOT NULL,
    bytes_decoded           UBIGINT NOT NULL,
    compression             VARCHAR NOT NULL,
    framing                 VARCHAR NOT NULL,
    encoding_flavor         VARCHAR NOT NULL,
    status                  VARCHAR NOT NULL,
    records_read            UINTEGER NOT NULL,
    records_ingested        UINTEGER NOT NULL,
    records_other_signal    UINTEGER NOT NULL,
    records_quarantined     UINTEGER NOT NULL,
    spans_read              UBIGINT NOT NULL,
    span_rows               UBIGINT NOT NULL,
    spans_quarantined       UBIGINT NOT NULL,
    spans_deduplicated      UBIGINT NOT NULL,
    attributes_read         UBIGINT NOT NULL,
    attribute_rows          UBIGINT NOT NULL,
    attributes_quarantined  UBIGINT NOT NULL,
    attributes_deduplicated UBIGINT NOT NULL,
    imported_at             TIMESTAMPTZ NOT NULL
);
