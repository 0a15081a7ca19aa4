-- Drop the stage_measurements rows being replaced: the producer's, and the derived ones at this analyzer
-- (or at every analyzer when the traces' content changed: $replace_all_versions).
-- Grain: deletes rows of core.stage_measurements. Reads: stale_trials.
DELETE FROM core.stage_measurements
WHERE trial_id IN (SELECT trial_id FROM stale_trials)
  AND (source = 'producer' OR $replace_all_versions OR analyzer_version = $analyzer);
