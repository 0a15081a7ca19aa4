-- Run-level facts gathered from a run's trials at materialization (CONTRACT §5.1 identities,
-- §5.10). A run-level attribute copied onto every trial is taken when its non-null copies
-- agree; when they disagree it is NULL and named in `conflicting_identity` (an absent identity
-- blocks parity, §5.11). `document_blocker` says why the run has no analytics document
-- (`runIdEmpty`, `suiteIdMissing`, `suiteIdConflict`): a document needs both ids (§5.1).
-- `completed_at` = the exported run completion time, else the latest trial end time;
-- `duration_ms` = wall time from the earliest trial start to `completed_at`;
-- `trials_duration_ms` = the sum of trial durations. Sums here are over one run's trials only.
-- Grain: one row per run_id. Reads: nothing (materialize step).
CREATE TABLE IF NOT EXISTS core.run_summary (
    run_id               VARCHAR NOT NULL,
    suite_id             VARCHAR,
    run_group_id         VARCHAR,
    config_revision      VARCHAR,
    case_set_fingerprint VARCHAR,
    run_status           VARCHAR,
    run_terminal         BOOLEAN NOT NULL,
    exported_materialization_state VARCHAR,
    trials_expected      INTEGER,
    trial_rows           BIGINT NOT NULL,
    started_at           TIMESTAMPTZ,
    completed_at         TIMESTAMPTZ,
    completed_at_exported BOOLEAN NOT NULL,
    input_tokens         HUGEINT,
    output_tokens        HUGEINT,
    duration_ms          DOUBLE,
    trials_duration_ms   DOUBLE,
    conflicting_identity VARCHAR[] NOT NULL,
    document_blocker     VARCHAR
);
