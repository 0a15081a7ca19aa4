-- The trials whose rows this derivation replaces: every trial of the touched traces, as stored
-- before and as rebuilt now, with its run. Every derived row carries its trial's run, so the
-- deletes below match (run_id, trial_id): the run prunes the row groups of other runs (the
-- tables are written batch by batch, whole runs at a time), so a batch's delete reads its own
-- rows, whatever the store size.
-- Grain: one row per (trial_id, run_id). Reads: core.trials, touched_traces, staged_trials.
CREATE OR REPLACE TEMP TABLE stale_trials AS
SELECT trial_id, run_id FROM core.trials WHERE trace_id IN (SELECT trace_id FROM touched_traces)
UNION
SELECT trial_id, run_id FROM staged_trials;
