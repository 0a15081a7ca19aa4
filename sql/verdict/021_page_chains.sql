-- The chains of a page's trials as the reader chose them (derived at $analyzer, or the
-- producer's at whatever version it reported when $source = 'producer'), with each trial's
-- first failed stage and failure category (CONTRACT §2.1, §6.7).
-- Grain: one row per (trial_id, stage_index). Reads: core.stage_chain, core.trial_outcome.
SELECT c.trial_id, c.analyzer_version, c.stage_index, c.stage, c.state, c.reason, c.evidence,
       o.first_failed_stage, o.failure_category
FROM core.stage_chain c
LEFT JOIN core.trial_outcome o ON o.trial_id = c.trial_id AND o.source = c.source
     AND o.analyzer_version = c.analyzer_version AND o.run_id = c.run_id
WHERE c.run_id = $run_id AND c.source = $source
  AND c.trial_id IN (SELECT unnest(CAST($trial_ids AS VARCHAR[])))
  AND ($source = 'producer' OR c.analyzer_version = $analyzer)
ORDER BY c.trial_id, c.analyzer_version, c.stage_index;
