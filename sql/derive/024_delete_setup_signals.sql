-- setup_signals of the trials being replaced (one copy per trial, independent of the analyzer).
-- Grain: deletes rows of core.setup_signals. Reads: stale_trials.
DELETE FROM core.setup_signals WHERE trial_id IN (SELECT trial_id FROM stale_trials);
