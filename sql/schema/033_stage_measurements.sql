-- Per-stage reach and latency of a chain (CONTRACT §4, StageMeasurementsV1).
-- No PRIMARY KEY: rows are replaced by delete-then-insert, which DuckDB indexes make costly.
-- Grain: one row per (trial_id, source, analyzer_version, stage_index). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.stage_measurements (
    trial_id         VARCHAR NOT NULL,
    run_id           VARCHAR NOT NULL,
    source           VARCHAR NOT NULL,
    analyzer_version INTEGER NOT NULL,
    stage_index      TINYINT NOT NULL,
    stage            VARCHAR NOT NULL,
    reach            VARCHAR NOT NULL,
    latency_ms       DOUBLE
);
