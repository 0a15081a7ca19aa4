-- Per trial per chain: first failed stage, failure category (CONTRACT §2.11) and the integrity
-- checks the funnel classifies on (CONTRACT §5.4, §7.4): absent ≠ verified.
-- No PRIMARY KEY: rows are replaced by delete-then-insert, which DuckDB indexes make costly.
-- Grain: one row per (trial_id, source, analyzer_version). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.trial_outcome (
    trial_id                    VARCHAR NOT NULL,
    run_id                      VARCHAR NOT NULL,
    source                      VARCHAR NOT NULL,
    analyzer_version            INTEGER NOT NULL,
    first_failed_stage          VARCHAR,
    failure_category            VARCHAR,
    chain_verified              BOOLEAN,
    measurements_present        BOOLEAN NOT NULL,
    measurements_verified       BOOLEAN,
    measurements_schema_version INTEGER,
    measurements_analyzer_version INTEGER
);
