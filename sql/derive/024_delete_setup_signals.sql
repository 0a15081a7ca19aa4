-- setup_signals of the trials being replaced (one copy per trial, independent of the analyzer).
-- Grain: deletes rows of core.setup_signals. Reads: stale_trials.
DELETE FROM core.setup_signals AS x
USING stale_trials AS s
WHERE x.run_id = s.run_id AND x.trial_id = s.trial_id;
