-- Per trial per chain: first failed stage, failure category (CONTRACT §2.11) and the integrity
-- checks the funnel classifies on (CONTRACT §5.4, §7.4): absent ≠ verified. For the producer's
-- chain, `chain_verified` / `measurements_verified` are its own verdicts, as sent, and
-- `measurements_agree` is valuechain's check of its measurements against its chain (§4,
-- TRACE-FORMAT §5.2 W_CHAIN_INVALID; NULL: not checked — no measurements, or a chain that
-- fails §2.1 or is ahead of this reader); for a derived chain it is the same check as
-- `measurements_verified`.
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
    measurements_analyzer_version INTEGER,
    measurements_agree          BOOLEAN
);
