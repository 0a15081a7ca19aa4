-- The first trial (by trial id) whose derived chain failed a stage, any analyzer version
-- (the trial the demo shows). Inputs: none.
-- Grain: at most one row. Reads: main.trial_outcome.
SELECT trial_id
FROM main.trial_outcome
WHERE source = 'derived' AND first_failed_stage IS NOT NULL
ORDER BY trial_id
LIMIT 1;
