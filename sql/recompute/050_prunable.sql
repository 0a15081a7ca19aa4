-- What --prune removes: derived chains older than $target of trials that have a derived chain
-- at $target (a trial whose only chain is old keeps it), in $run_ids or every run ($all_runs).
-- The producer's chains are never pruned. Grain: one row per (run_id, analyzer_version).
-- Reads: core.trial_outcome.
SELECT o.run_id, o.analyzer_version, count(*) AS trials
FROM core.trial_outcome o
WHERE o.source = 'derived'
  AND o.analyzer_version < $target
  AND ($all_runs OR o.run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[]))))
  AND EXISTS (
      SELECT 1 FROM core.trial_outcome n
      WHERE n.trial_id = o.trial_id AND n.run_id = o.run_id
        AND n.source = 'derived' AND n.analyzer_version = $target
  )
GROUP BY ALL
ORDER BY o.run_id, o.analyzer_version;
