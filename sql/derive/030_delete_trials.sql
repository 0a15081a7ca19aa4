-- Grain: deletes the core.trials rows of the touched traces (each is in stale_trials with its
-- run, which prunes the row groups of other runs). Reads: touched_traces, stale_trials.
DELETE FROM core.trials
WHERE run_id IN (SELECT run_id FROM stale_trials)
  AND trace_id IN (SELECT trace_id FROM touched_traces);
