-- Every stored chain of the pages' non-passing trials (derived at every version, and the
-- producer's), one row per chain with its six rows in stage order, and its first failed stage
-- and failure category: a page shows items only for trials whose result is not `passed`
-- (CONTRACT §6.7). Kept as the temporary table v_page_chains that 046 reads.
-- Grain: one row per (trial_id, source, analyzer_version).
-- Reads: v_pages, core.stage_chain, core.trial_outcome.
CREATE OR REPLACE TEMP TABLE v_page_chains AS
SELECT c.run_id, c.trial_id, c.source, c.analyzer_version,
       -- in stage order: sorted as structs led by the index, half the cost of an ordered
       -- aggregate (rows that share an index, which no writer stores, fall in content order)
       list_sort(list({'stage_index': c.stage_index, 'stage': c.stage, 'state': c.state,
                       'reason': c.reason, 'evidence': c.evidence})) AS stage_rows,
       any_value(o.first_failed_stage) AS first_failed_stage,
       any_value(o.failure_category) AS failure_category
FROM v_pages p
JOIN core.stage_chain c ON c.trial_id = p.trial_id AND c.run_id = p.run_id
LEFT JOIN core.trial_outcome o ON o.trial_id = c.trial_id AND o.source = c.source
     AND o.analyzer_version = c.analyzer_version AND o.run_id = c.run_id
WHERE p.trial_result IS DISTINCT FROM 'passed'
GROUP BY c.run_id, c.trial_id, c.source, c.analyzer_version;
