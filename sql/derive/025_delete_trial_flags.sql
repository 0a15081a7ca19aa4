-- trial_flags of the trials being replaced (one copy per trial, independent of the analyzer).
-- Grain: deletes rows of core.trial_flags. Reads: stale_trials.
DELETE FROM core.trial_flags WHERE trial_id IN (SELECT trial_id FROM stale_trials);
