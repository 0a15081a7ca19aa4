-- Replace, step 2: the summaries built (and validated) by the caller, registered as
-- v_decision_summaries. Grain: one row per (run_id, chain_source, analyzer_version).
-- Reads: v_decision_summaries.
INSERT INTO core.decision_summaries BY NAME SELECT * FROM v_decision_summaries;
