-- Run-level figures of each analytics document (CONTRACT §5.1), flattened for SQL readers.
-- `analyzer_version` is the READER's version the document was built at (for derived chains,
-- the version they were derived at; for producer chains, valuechain's current analyzer), and
-- `stage_analyzer_version` the version the included chains were actually derived at (§5.9).
-- Counts only; rates are views (§5.8, §5.12).
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: nothing (materialize).
CREATE TABLE IF NOT EXISTS core.analytics_runs (
    run_id                              VARCHAR NOT NULL,
    chain_source                        VARCHAR NOT NULL,
    analyzer_version                    INTEGER NOT NULL,
    stage_analyzer_version              INTEGER NOT NULL,
    source_stage_analyzer_versions      INTEGER[],
    measurements_schema_version         INTEGER NOT NULL,
    source_measurements_schema_versions INTEGER[],
    materialization_state               VARCHAR NOT NULL,
    run_completed_at                    TIMESTAMPTZ,
    included_trials                     BIGINT NOT NULL,
    total_trials                        BIGINT NOT NULL,
    excluded_lifecycle                  BIGINT NOT NULL,
    excluded_integrity                  BIGINT NOT NULL,
    excluded_version                    BIGINT NOT NULL,
    excluded_trial_detail               STRUCT(detail VARCHAR, count BIGINT)[] NOT NULL,
    created_at                          TIMESTAMPTZ NOT NULL,
    updated_at                          TIMESTAMPTZ NOT NULL
);
