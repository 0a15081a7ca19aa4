-- The trials of the target runs with their analytics attributes normalised (CONTRACT §5.2,
-- §5.4): intent trimmed with JavaScript's whitespace set, blank ⇒ NULL (unlabelled, Q8/Q18);
-- provider and model kept only when both are known; a blank host key, host name or engine is
-- not recorded. `trial_exclusion` is what the evidence adapter found about the trial itself
-- (core.trials.exclusion_class: `version` for an export contract ahead of ours, `integrity`
-- for a malformed trial) or a trial id on several rows (`integrity`).
-- Grain: one row per core.trials row (trial_id, trace_id) of a target run.
-- Reads: a_target_runs, a_trial_keys, core.trials, core.trial_flags.
CREATE OR REPLACE TEMP TABLE a_trials AS
WITH flags AS (
    SELECT DISTINCT f.run_id, f.trial_id, true AS evaluator_errored
    FROM core.trial_flags f
    JOIN a_target_runs USING (run_id)
    WHERE f.evaluator_errored
)
SELECT
    t.run_id,
    k.tkey,
    t.trial_id,
    t.trace_id,
    t.iteration_number,
    t.status,
    coalesce(f.evaluator_errored, false)                             AS evaluator_errored,
    CASE
        WHEN t.exclusion_class = 'version' THEN 'version'
        WHEN t.exclusion_class IS NOT NULL OR k.copies > 1 THEN 'integrity'
    END                                                              AS trial_exclusion,
    nullif(trim(t.intent, $js_whitespace), '')                       AS intent,
    CASE WHEN t.provider <> '' AND t.model <> '' THEN t.provider END AS provider,
    CASE WHEN t.provider <> '' AND t.model <> '' THEN t.model END    AS model,
    nullif(t.host_key, '')                                           AS host_key,
    nullif(t.host_name, '')                                          AS host_name,
    nullif(t.execution_engine, '')                                   AS execution_engine,
    nullif(t.suite_id, '')                                           AS suite_id,
    nullif(t.run_group_id, '')                                       AS run_group_id,
    nullif(t.config_revision, '')                                    AS config_revision,
    nullif(t.case_set_fingerprint, '')                               AS case_set_fingerprint,
    nullif(t.run_status, '')                                         AS run_status,
    t.materialization_state,
    t.run_completed_at,
    t.trials_expected,
    t.started_at,
    t.ended_at,
    t.input_tokens,
    t.output_tokens,
    t.duration_ms
FROM core.trials t
JOIN a_target_runs USING (run_id)
JOIN a_trial_keys k USING (run_id, trial_id)
LEFT JOIN flags f USING (run_id, trial_id);
