-- The derived chains `recompute --prune` drops for an analyzer version `target`: those older
-- than it, of trials that have a derived chain at `target` (a trial whose only chain is old
-- keeps it), in the runs `run_ids` or every run (`all_runs`). The producer's chains are never
-- pruned. Grain: one row per (trial_id, run_id, analyzer_version). Reads: core.trial_outcome.
CREATE OR REPLACE MACRO core.prunable_chains(target, all_runs, run_ids) AS TABLE
SELECT o.trial_id, o.run_id, o.analyzer_version
FROM core.trial_outcome o
WHERE o.source = 'derived'
  AND o.analyzer_version < target
  AND (all_runs OR list_contains(run_ids, o.run_id))
  AND EXISTS (
      SELECT 1 FROM core.trial_outcome n
      WHERE n.trial_id = o.trial_id AND n.run_id = o.run_id
        AND n.source = 'derived' AND n.analyzer_version = target
  );
