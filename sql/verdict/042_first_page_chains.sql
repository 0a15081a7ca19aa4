-- Every stored chain of the first pages' non-passing trials (derived at every version, and the
-- producer's), with first failed stage and failure category: a page shows items only for
-- trials whose result is not `passed` (CONTRACT §6.7).
-- Grain: one row per (trial_id, source, analyzer_version, stage_index).
-- Reads: v_first_pages, core.stage_chain, core.trial_outcome.
SELECT c.run_id, c.trial_id, c.source, c.analyzer_version, c.stage_index, c.stage, c.state,
       c.reason, c.evidence, o.first_failed_stage, o.failure_category
FROM v_first_pages p
JOIN core.stage_chain c ON c.trial_id = p.trial_id AND c.run_id = p.run_id
LEFT JOIN core.trial_outcome o ON o.trial_id = c.trial_id AND o.source = c.source
     AND o.analyzer_version = c.analyzer_version AND o.run_id = c.run_id
WHERE p.trial_result IS DISTINCT FROM 'passed'
ORDER BY c.run_id, c.trial_id, c.source, c.analyzer_version, c.stage_index;
