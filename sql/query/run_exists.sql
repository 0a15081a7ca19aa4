-- Whether the store holds any trial of a run. Inputs: $run_id.
-- Grain: one row. Reads: core.trials.
SELECT count(*) > 0 AS found
FROM core.trials
WHERE run_id = $run_id;
