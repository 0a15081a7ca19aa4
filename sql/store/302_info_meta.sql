-- Store info: the store's metadata (schema version, creator, views digest).
-- Grain: one row per key. Reads: core.meta.
SELECT key, value FROM core.meta ORDER BY key;
