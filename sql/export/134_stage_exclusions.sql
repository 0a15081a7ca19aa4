-- The stage_exclusions rows of the exported runs, each with its run's suite id for the folder.
-- Grain: one row per (run, chain source, analyzer, slice, stage, class). Reads: main.stage_exclusions, export_run_suites, export_runs.
SELECT x.*, s.suite_id
FROM main.stage_exclusions x
LEFT JOIN export_run_suites s USING (run_id)
WHERE x.run_id IN (SELECT run_id FROM export_runs)
