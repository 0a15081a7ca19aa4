-- Drop the trial_outcome rows being replaced: the producer's, and the derived ones at this analyzer
-- (or at every analyzer when the traces' content changed: $replace_all_versions).
-- Grain: deletes rows of core.trial_outcome. Reads: stale_trials.
DELETE FROM core.trial_outcome
WHERE trial_id IN (SELECT trial_id FROM stale_trials)
  AND (source = 'producer' OR $replace_all_versions OR analyzer_version = $analyzer);
