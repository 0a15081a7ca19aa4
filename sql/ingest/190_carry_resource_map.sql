-- The last resource row of this group, as its map keeps it, for the next group of the source
-- (sql/ingest/030–031). Grain: one row (none if the source has no resource yet).
CREATE OR REPLACE TEMP TABLE carried_resource_map AS
SELECT resource_row, kept_row FROM resource_map ORDER BY resource_row DESC LIMIT 1;
