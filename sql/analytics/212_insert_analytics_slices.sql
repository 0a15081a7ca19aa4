-- Replace, step 2: each document's retained slices.
-- Grain: one row per (document, retained slice). Reads: a_slices, a_docs.
INSERT INTO core.analytics_slices BY NAME
SELECT
    d.run_id, d.chain_source, d.analyzer_version, s.slice_index, s.slice_dimension, s.intent,
    s.provider, s.model, s.host_key, s.host_name, s.execution_engine, s.included_trials,
    s.excluded_lifecycle, s.excluded_integrity, s.excluded_version, s.failure_categories
FROM a_slices s
JOIN a_docs d USING (doc_id)
WHERE s.retained;
