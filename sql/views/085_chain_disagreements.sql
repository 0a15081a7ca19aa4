-- Where the producer's persisted chain and valuechain's derived chain disagree, stage by stage
-- (the `verify` command). Only trials that carry both chains are compared.
-- Grain: one row per (trial_id, derived analyzer_version, stage_index) that differs.
-- Reads: core.stage_chain.
CREATE OR REPLACE VIEW main.chain_disagreements AS
SELECT
    d.run_id,
    d.trial_id,
    d.stage_index,
    d.stage,
    p.analyzer_version AS producer_analyzer_version,
    p.state            AS producer_state,
    p.reason           AS producer_reason,
    d.analyzer_version AS derived_analyzer_version,
    d.state            AS derived_state,
    d.reason           AS derived_reason
FROM core.stage_chain d
JOIN core.stage_chain p
  ON p.trial_id = d.trial_id AND p.stage_index = d.stage_index AND p.source = 'producer'
WHERE d.source = 'derived'
  AND (d.state IS DISTINCT FROM p.state OR d.reason IS DISTINCT FROM p.reason);
