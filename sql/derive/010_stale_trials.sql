-- The trials whose rows this derivation replaces: every trial of the touched traces, as stored
-- before and as rebuilt now. Grain: one row per trial_id. Reads: core.trials, touched_traces,
-- staged_trials.
CREATE OR REPLACE TEMP TABLE stale_trials AS
SELECT trial_id FROM core.trials WHERE trace_id IN (SELECT trace_id FROM touched_traces)
UNION
SELECT trial_id FROM staged_trials;
