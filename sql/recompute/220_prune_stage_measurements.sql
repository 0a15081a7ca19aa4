-- Prune: drop the derived stage_measurements rows of the chains set aside by 200.
-- Grain: deletes rows of core.stage_measurements. Reads: pruned_chains.
DELETE FROM core.stage_measurements x USING pruned_chains p
WHERE x.source = 'derived' AND x.trial_id = p.trial_id AND x.run_id = p.run_id
  AND x.analyzer_version = p.analyzer_version;
