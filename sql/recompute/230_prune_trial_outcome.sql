-- Prune: drop core.trial_outcome's derived rows older than $target of trials that have a derived
-- chain at $target, in $run_ids or every run ($all_runs); the producer's rows stay.
-- Grain: deletes rows of core.trial_outcome. Reads: core.trial_outcome.
DELETE FROM core.trial_outcome x
WHERE x.source = 'derived'
  AND x.analyzer_version < $target
  AND ($all_runs OR x.run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[]))))
  AND EXISTS (
      SELECT 1 FROM core.trial_outcome n
      WHERE n.trial_id = x.trial_id AND n.run_id = x.run_id
        AND n.source = 'derived' AND n.analyzer_version = $target
  );
