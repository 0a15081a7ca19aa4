-- The last scope row of this group, as its map keeps it, for the next group of the source
-- (sql/ingest/030–031). Grain: one row (none if the source has no scope yet).
CREATE OR REPLACE TEMP TABLE carried_scope_map AS
SELECT scope_row, kept_row FROM scope_map ORDER BY scope_row DESC LIMIT 1;
