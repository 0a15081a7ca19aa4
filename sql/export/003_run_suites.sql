-- The suite folder of a run-level row: the suite id its trials carry (the first, should they
-- disagree). Grain: one row per run_id. Reads: main.trials.
CREATE OR REPLACE TEMP TABLE export_run_suites AS
SELECT run_id, min(suite_id) AS suite_id
FROM main.trials
GROUP BY run_id;
