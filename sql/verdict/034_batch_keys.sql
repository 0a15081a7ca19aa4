-- A batch's share of the staged keys (a write of more than one batch: 030–043 ran once for
-- every target run into v_staged_*, so no batch scans the store again; CONTRACT §6.7).
-- Grain: one row per (run_id, chain_source, analyzer_version) of the batch's runs.
-- Reads: v_staged_keys, $run_ids.
CREATE OR REPLACE TEMP TABLE v_keys AS
SELECT * FROM v_staged_keys
WHERE run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])));
