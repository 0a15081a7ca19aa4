-- A batch's share of the staged page chains (see 034).
-- Grain: one row per (trial_id, source, analyzer_version) of the batch's runs.
-- Reads: v_staged_page_chains, $run_ids.
CREATE OR REPLACE TEMP TABLE v_page_chains AS
SELECT * FROM v_staged_page_chains
WHERE run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])));
