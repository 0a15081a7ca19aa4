-- The import sources of the exported runs. Grain: one row per accepted source.
-- Reads: main.imports, export_sources.
SELECT * FROM main.imports WHERE source_id IN (SELECT source_id FROM export_sources)
