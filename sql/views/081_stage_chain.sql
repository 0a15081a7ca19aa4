-- Public view of chains: six rows per trial per (source, analyzer_version), in stage order.
-- Grain: one row per (trial_id, source, analyzer_version, stage_index). Reads: core.stage_chain.
CREATE OR REPLACE VIEW main.stage_chain AS
SELECT trial_id, run_id, stage_index, stage, state, reason, source, analyzer_version, evidence
FROM core.stage_chain;
