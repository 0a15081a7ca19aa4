-- Delete, re-materialization: the runs whose documents are rebuilt. Grain: one row per run_id.
-- Reads: st_runs.
SELECT run_id FROM st_runs ORDER BY run_id;
