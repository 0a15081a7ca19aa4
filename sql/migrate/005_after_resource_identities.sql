-- To store schema version 4: resources and scopes carry their content identity, so that each is
-- stored once (sql/ingest/100–101). Rows stored before have none (NULL): they are never matched,
-- and nothing else changes (a store older than version 3 has them already: sql/migrate/003
-- rebuilt the tables from sql/schema). Grain: adds two columns. Reads: nothing.
-- (A migration script: several statements.)
ALTER TABLE core.resources ADD COLUMN IF NOT EXISTS content_hash BLOB;
ALTER TABLE core.scopes ADD COLUMN IF NOT EXISTS content_hash BLOB;
