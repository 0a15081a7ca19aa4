-- The run listing: run-level facts plus the run's default analytics document (derived chains
-- at the current analyzer, DESIGN.md). Analytics columns are NULL when that document does not
-- exist: the run is UNMEASURED there (CONTRACT §5.10), never zero. A listing is a trend series,
-- never an aggregate: nothing here sums across runs (seed 001 rule 7).
-- Completeness (TRACE-FORMAT §5.2 W_RUN_INCOMPLETE_IN_EXPORT): `trials_in_store` of
-- `trials_expected` (`mcp.app.run.trials_expected`); `trials_missing` are configured trials no
-- export in the store carried, kept apart from the stored trials the producer marked
-- `trials_pending` / `trials_skipped`. NULL where the run expects no count. `eval_run`: the
-- run's trials carry the mcp.app contract (a source-only run `src-…` of plain traces does not).
-- Grain: one row per run_id. Reads: core.run_summary, core.analytics_runs, core.trials.
CREATE OR REPLACE VIEW main.runs AS
SELECT
    s.run_id,
    s.suite_id,
    s.run_group_id,
    s.config_revision,
    s.case_set_fingerprint,
    a.stage_analyzer_version,
    a.measurements_schema_version,
    a.materialization_state,
    s.completed_at,
    a.included_trials,
    a.total_trials,
    s.input_tokens,
    s.output_tokens,
    s.duration_ms,
    s.run_status,
    s.trial_rows,
    s.trials_expected,
    s.trial_rows AS trials_in_store,
    CASE WHEN s.trials_expected IS NOT NULL
        THEN greatest(s.trials_expected - s.trial_rows, 0) END AS trials_missing,
    coalesce(t.trials_pending, 0) AS trials_pending,
    coalesce(t.trials_skipped, 0) AS trials_skipped,
    coalesce(t.eval_run, false) AS eval_run,
    s.started_at,
    s.trials_duration_ms,
    a.excluded_lifecycle,
    a.excluded_integrity,
    a.excluded_version,
    a.source_stage_analyzer_versions,
    a.source_measurements_schema_versions,
    a.updated_at AS materialized_at,
    s.document_blocker,
    s.conflicting_identity
FROM core.run_summary s
LEFT JOIN core.analytics_runs a
    ON a.run_id = s.run_id
    AND a.chain_source = 'derived'
    AND a.analyzer_version = core.current_stage_analyzer_version()
LEFT JOIN (
    SELECT
        run_id,
        count(*) FILTER (status = 'pending') AS trials_pending,
        count(*) FILTER (status = 'skipped') AS trials_skipped,
        bool_or(contract)                    AS eval_run
    FROM core.trials
    GROUP BY run_id
) t ON t.run_id = s.run_id;
