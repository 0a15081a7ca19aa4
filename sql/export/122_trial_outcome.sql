-- The trial_outcome rows of the exported runs, each with its trial's suite id for the folder.
-- Grain: one row per (trial, source, analyzer). Reads: main.trial_outcome, export_trial_suites, export_runs.
SELECT x.*, s.suite_id
FROM main.trial_outcome x
LEFT JOIN export_trial_suites s USING (trial_id)
WHERE x.run_id IN (SELECT run_id FROM export_runs)
