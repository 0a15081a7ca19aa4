-- Replace, step 2: the target runs' run-level facts.
-- Grain: one row per run. Reads: a_run_facts.
INSERT INTO core.run_summary BY NAME
SELECT
    run_id, suite_id, run_group_id, config_revision, case_set_fingerprint, run_status,
    run_terminal, exported_materialization_state, trials_expected, trial_rows, started_at,
    completed_at, completed_at_exported, input_tokens, output_tokens, duration_ms,
    trials_duration_ms, conflicting_identity, document_blocker
FROM a_run_facts;
