-- Replace, step 2: the summaries of sql/verdict/050 (v_summaries), their documents validated
-- by the caller. Grain: one row per (run_id, chain_source, analyzer_version).
-- Reads: v_summaries.
INSERT INTO core.decision_summaries BY NAME SELECT * FROM v_summaries;
