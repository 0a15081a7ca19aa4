-- The runs an export writes: every run with trials, or those of --runs.
-- Grain: one row per run_id. Reads: main.trials. Params: $all_runs, $run_ids.
CREATE OR REPLACE TEMP TABLE export_runs AS
SELECT DISTINCT run_id
FROM main.trials
WHERE $all_runs OR run_id IN (SELECT unnest($run_ids::VARCHAR[]));
