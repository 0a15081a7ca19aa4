-- The stage_chain rows of the exported runs, each with its trial's suite id for the folder.
-- Grain: one row per (trial, source, analyzer, stage). Reads: main.stage_chain, export_trial_suites, export_runs.
SELECT x.*, s.suite_id
FROM main.stage_chain x
LEFT JOIN export_trial_suites s USING (trial_id)
WHERE x.run_id IN (SELECT run_id FROM export_runs)
