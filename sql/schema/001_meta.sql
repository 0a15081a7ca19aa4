-- Store metadata: schema version and the valuechain version that created the store.
-- Grain: one row per key. Reads: nothing.
CREATE TABLE IF NOT EXISTS core.meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
