-- Replace, step 2: each document's run-level figures.
-- Grain: one row per document. Reads: a_doc_facts.
INSERT INTO core.analytics_runs BY NAME
SELECT
    run_id, chain_source, analyzer_version, stage_analyzer_version,
    source_stage_analyzer_versions, measurements_schema_version,
    source_measurements_schema_versions, materialization_state, run_completed_at,
    included_trials, total_trials, excluded_lifecycle, excluded_integrity, excluded_version,
    excluded_trial_detail, created_at, updated_at
FROM a_doc_facts;
