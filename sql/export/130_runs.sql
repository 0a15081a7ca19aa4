-- Grain: one row per exported run. Reads: main.runs, export_runs.
SELECT * FROM main.runs WHERE run_id IN (SELECT run_id FROM export_runs)
