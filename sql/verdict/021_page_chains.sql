-- The chains of a page's trials as the reader chose them (derived at $analyzer, or the
-- producer's at whatever version it reported when $source = 'producer'), one row per chain
-- with its six rows in stage order, first failed stage and failure category (CONTRACT §2.1,
-- §6.7).
-- Grain: one row per (trial_id, analyzer_version). Reads: core.stage_chain, core.trial_outcome.
SELECT c.trial_id, c.analyzer_version,
       list({'stage': c.stage, 'state': c.state, 'reason': c.reason, 'evidence': c.evidence}
            ORDER BY c.stage_index) AS stage_rows,
       any_value(o.first_failed_stage) AS first_failed_stage,
       any_value(o.failure_category) AS failure_category
FROM core.stage_chain c
LEFT JOIN core.trial_outcome o ON o.trial_id = c.trial_id AND o.source = c.source
     AND o.analyzer_version = c.analyzer_version AND o.run_id = c.run_id
WHERE c.run_id = $run_id AND c.source = $source
  AND c.trial_id IN (SELECT unnest(CAST($trial_ids AS VARCHAR[])))
  AND ($source = 'producer' OR c.analyzer_version = $analyzer)
GROUP BY c.trial_id, c.analyzer_version
ORDER BY c.trial_id, c.analyzer_version;
