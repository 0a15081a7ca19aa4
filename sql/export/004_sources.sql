-- The import sources an export writes: every source, or those holding spans of the --runs.
-- Grain: one row per source_id. Reads: main.imports, main.spans, export_trace_runs,
-- export_runs. Params: $all_runs.
CREATE OR REPLACE TEMP TABLE export_sources AS
SELECT i.source_id
FROM main.imports i
WHERE $all_runs
   OR i.source_id IN (
        SELECT s.source_id
        FROM main.spans s
        JOIN export_trace_runs r USING (trace_id)
        WHERE r.run_id IN (SELECT run_id FROM export_runs));
