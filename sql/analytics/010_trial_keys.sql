-- One integer key per (run_id, trial_id) of the target runs, so the large per-row passes join
-- and group on an integer. `copies` > 1 means one trial id on several trial rows of the run
-- (several traces, W_TRIAL_ID_CONFLICT): the chain stored under that id belongs to none of them.
-- Grain: one row per (run_id, trial_id). Reads: a_target_runs, core.trials.
CREATE OR REPLACE TEMP TABLE a_trial_keys AS
SELECT
    t.run_id,
    t.trial_id,
    count(*)                                AS copies,
    CAST(row_number() OVER () AS INTEGER)   AS tkey
FROM core.trials t
JOIN a_target_runs USING (run_id)
GROUP BY t.run_id, t.trial_id;
