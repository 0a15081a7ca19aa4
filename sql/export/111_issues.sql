-- The import issues of the exported sources (every issue on a whole export).
-- Grain: one row per issue. Reads: main.issues, export_sources. Params: $all_runs.
SELECT * FROM main.issues
WHERE $all_runs OR source_id IN (SELECT source_id FROM export_sources)
