-- The summaries of sql/verdict/050, for a caller that reads them instead of storing them, and
-- for the schema check of those a write stores (materialize/validation.py).
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: v_summaries.
SELECT run_id, chain_source, analyzer_version, document
FROM v_summaries
ORDER BY run_id, chain_source, analyzer_version;
