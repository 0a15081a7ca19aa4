-- Prune: drop the derived trial_outcome rows of the chains set aside by 200.
-- Grain: deletes rows of core.trial_outcome. Reads: pruned_chains.
DELETE FROM core.trial_outcome x USING pruned_chains p
WHERE x.source = 'derived' AND x.trial_id = p.trial_id AND x.run_id = p.run_id
  AND x.analyzer_version = p.analyzer_version;
