-- The log of what `valuechain store` operations changed (delete, purge-content, vacuum,
-- migrate): a store is evidence, so removing part of it is recorded with what was removed.
-- `details` is the JSON of the counts the command printed.
-- Grain: one row per operation. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.store_operations (
    operation_id INTEGER NOT NULL,
    operation    VARCHAR NOT NULL,
    target       VARCHAR,
    details      JSON NOT NULL,
    valuechain   VARCHAR NOT NULL,
    done_at      TIMESTAMPTZ NOT NULL
);
