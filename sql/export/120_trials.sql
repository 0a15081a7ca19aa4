-- Grain: one row per trial of the exported runs. Reads: main.trials, export_runs.
SELECT * FROM main.trials WHERE run_id IN (SELECT run_id FROM export_runs)
