-- A batch's share of the staged first pages (see 034).
-- Grain: one row per page trial of the batch's runs. Reads: v_staged_pages, $run_ids.
CREATE OR REPLACE TEMP TABLE v_pages AS
SELECT * FROM v_staged_pages
WHERE run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])));
