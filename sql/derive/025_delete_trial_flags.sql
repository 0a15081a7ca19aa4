-- trial_flags of the trials being replaced (one copy per trial, independent of the analyzer).
-- Grain: deletes rows of core.trial_flags. Reads: stale_trials.
DELETE FROM core.trial_flags AS x
USING stale_trials AS s
WHERE x.run_id = s.run_id AND x.trial_id = s.trial_id;
