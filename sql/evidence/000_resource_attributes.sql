-- The attribute rows of every stored resource, copied once per derive into a temporary table
-- ordered by resource row. In core.attributes an import's few resource rows share row groups
-- with its span rows, so no row group's owner_row range excludes them: read there, the resource
-- part of each batch's attribute read (020) scanned every import's mixed row groups (~16 ms a
-- batch with 100 imports, growing with every import). Copied here, a batch's lookup prunes.
-- Resources are stored once each (ingest/100_resource_map.sql), so the copy stays small.
-- Grain: one row per (owner_row, ordinal) of a resource. Reads: core.attributes.
CREATE OR REPLACE TEMP TABLE evidence_resource_attributes AS
SELECT *
FROM core.attributes
WHERE owner_type = 'resource'
ORDER BY owner_row, ordinal
