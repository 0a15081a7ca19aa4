-- Run-level facts from the run's trial copies (CONTRACT §5.1, §5.10, §5.11). An identity is
-- taken only when its non-null copies agree (absent identity blocks parity, never matches);
-- a document needs a non-empty run id and a single suite id (`document_blocker` says why not). The run is terminal when its exported status is one of
-- RUN_TERMINAL_STATUSES, or — no status exported — when every trial is terminal. The exported
-- materialization state wins when present (any `provisional` copy ⇒ provisional).
-- `completed_at`: the exported completion time, else the latest trial end (TRACE-FORMAT §3.5);
-- the document stamps `runCompletedAt` only for a terminal run.
-- Grain: one row per target run with trials. Reads: a_trials.
CREATE OR REPLACE TEMP TABLE a_run_facts AS
WITH per_run AS (
    SELECT
        run_id,
        count(DISTINCT suite_id)             AS n_suite,
        min(suite_id)                        AS any_suite,
        count(DISTINCT run_group_id)         AS n_group,
        min(run_group_id)                    AS any_group,
        count(DISTINCT config_revision)      AS n_config,
        min(config_revision)                 AS any_config,
        count(DISTINCT case_set_fingerprint) AS n_case_set,
        min(case_set_fingerprint)            AS any_case_set,
        count(DISTINCT run_status)           AS n_status,
        min(run_status)                      AS any_status,
        coalesce(bool_or(materialization_state = 'provisional'), false) AS exported_provisional,
        coalesce(bool_or(materialization_state = 'final'), false)       AS exported_final,
        bool_and(coalesce(status IN ('completed', 'failed', 'cancelled', 'timed_out',
                                     'setup_failed', 'skipped'), false)) AS all_trials_terminal,
        max(run_completed_at)                AS exported_completed_at,
        max(ended_at)                        AS latest_end,
        min(started_at)                      AS earliest_start,
        max(trials_expected)                 AS trials_expected,
        count(*)                             AS trial_rows,
        sum(input_tokens)                    AS input_tokens,
        sum(output_tokens)                   AS output_tokens,
        sum(duration_ms)                     AS trials_duration_ms
    FROM a_trials
    GROUP BY run_id
), facts AS (
    SELECT
        *,
        CASE WHEN n_status = 1 THEN any_status END AS run_status,
        CASE
            WHEN n_status = 1 THEN any_status IN ('completed', 'failed', 'cancelled', 'timed_out')
            WHEN n_status > 1 THEN false
            ELSE all_trials_terminal
        END                                        AS run_terminal,
        coalesce(exported_completed_at, latest_end) AS completed_at
    FROM per_run
)
SELECT
    run_id,
    CASE WHEN n_suite = 1 THEN any_suite END       AS suite_id,
    CASE WHEN n_group = 1 THEN any_group END       AS run_group_id,
    CASE WHEN n_config = 1 THEN any_config END     AS config_revision,
    CASE WHEN n_case_set = 1 THEN any_case_set END AS case_set_fingerprint,
    run_status,
    run_terminal,
    CASE WHEN exported_provisional THEN 'provisional' WHEN exported_final THEN 'final' END
                                                   AS exported_materialization_state,
    trials_expected,
    trial_rows,
    earliest_start                                 AS started_at,
    completed_at,
    exported_completed_at IS NOT NULL              AS completed_at_exported,
    CASE WHEN run_terminal THEN completed_at END   AS document_completed_at,
    input_tokens,
    output_tokens,
    (epoch_us(completed_at) - epoch_us(earliest_start)) / 1000.0 AS duration_ms,
    trials_duration_ms,
    list_filter([
        CASE WHEN n_suite > 1 THEN 'suite_id' END,
        CASE WHEN n_group > 1 THEN 'run_group_id' END,
        CASE WHEN n_config > 1 THEN 'config_revision' END,
        CASE WHEN n_case_set > 1 THEN 'case_set_fingerprint' END,
        CASE WHEN n_status > 1 THEN 'run_status' END
    ], lambda x: x IS NOT NULL)                    AS conflicting_identity,
    CASE
        WHEN run_id = '' THEN 'runIdEmpty'
        WHEN n_suite = 0 THEN 'suiteIdMissing'
        WHEN n_suite > 1 THEN 'suiteIdConflict'
    END                                            AS document_blocker
FROM facts;
