-- Whether a run is in the store (any trial of it). Grain: one row. Reads: core.trials.
SELECT count(*) > 0 AS found FROM core.trials WHERE run_id = $run_id;
