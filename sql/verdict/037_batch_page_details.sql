-- A batch's share of the staged page details (see 034).
-- Grain: one row per non-passing page trial of the batch's runs.
-- Reads: v_staged_page_details, $run_ids.
CREATE OR REPLACE TEMP TABLE v_page_details AS
SELECT * FROM v_staged_page_details
WHERE run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])));
