-- The trial-level issues of the exported runs (every one, those of no run too, on a whole
-- export), each with its trial's suite id for the folder. Grain: one row per issue.
-- Reads: main.trial_issues, export_trial_suites, export_runs. Params: $all_runs.
SELECT x.*, s.suite_id
FROM main.trial_issues x
LEFT JOIN export_trial_suites s USING (trial_id)
WHERE $all_runs OR x.run_id IN (SELECT run_id FROM export_runs)
