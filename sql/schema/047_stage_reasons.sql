-- Reason counts per stage of each retained slice, over every included trial's row for that
-- stage, notApplicable rows included (CONTRACT §5.3); `reason_index` is the 29-reason
-- vocabulary position (§1.3), the tally order. Zero counts are not stored.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index, reason).
-- Reads: nothing (materialize).
CREATE TABLE IF NOT EXISTS core.stage_reasons (
    run_id           VARCHAR NOT NULL,
    chain_source     VARCHAR NOT NULL,
    analyzer_version INTEGER NOT NULL,
    slice_index      INTEGER NOT NULL,
    slice_dimension  VARCHAR NOT NULL,
    intent           VARCHAR,
    provider         VARCHAR,
    model            VARCHAR,
    host_key         VARCHAR,
    stage_index      TINYINT NOT NULL,
    stage            VARCHAR NOT NULL,
    reason_index     TINYINT NOT NULL,
    reason           VARCHAR NOT NULL,
    count            BIGINT NOT NULL
);
