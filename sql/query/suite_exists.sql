-- Whether the store holds any trial of a suite. Inputs: $suite_id.
-- Grain: one row. Reads: core.trials.
SELECT count(*) > 0 AS found
FROM core.trials
WHERE suite_id = $suite_id;
