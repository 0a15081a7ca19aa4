-- The execution variant of each trial of one run (provider/model, as tables print it): what
-- a decision summary's diagnostics name a trial by, beside its id and case.
-- Grain: one row per trial of the run. Reads: main.trials.
SELECT trial_id, nullif(concat_ws('/', provider, model), '') AS variant
FROM main.trials
WHERE run_id = $run_id;
