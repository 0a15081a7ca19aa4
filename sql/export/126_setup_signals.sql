-- The setup_signals rows of the exported runs, each with its trial's suite id for the folder.
-- Grain: one row per (trial, set-up phase): the materializer's input. Reads: core.setup_signals, export_trial_suites, export_runs.
SELECT x.*, s.suite_id
FROM core.setup_signals x
LEFT JOIN export_trial_suites s USING (trial_id)
WHERE x.run_id IN (SELECT run_id FROM export_runs)
