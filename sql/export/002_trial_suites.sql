-- The suite folder of a trial-level row: its trial's suite id (the first, should a trial id
-- repeat). Grain: one row per trial_id. Reads: main.trials.
CREATE OR REPLACE TEMP TABLE export_trial_suites AS
SELECT trial_id, min(suite_id) AS suite_id
FROM main.trials
GROUP BY trial_id;
