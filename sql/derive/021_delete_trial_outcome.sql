-- Drop the trial_outcome rows being replaced: the producer's, and the derived ones at this analyzer
-- (or at every analyzer when the traces' content changed: $replace_all_versions).
-- Grain: deletes rows of core.trial_outcome. Reads: stale_trials.
DELETE FROM core.trial_outcome AS x
USING stale_trials AS s
WHERE x.run_id = s.run_id
  AND x.trial_id = s.trial_id
  AND (x.source = 'producer' OR $replace_all_versions OR x.analyzer_version = $analyzer);
