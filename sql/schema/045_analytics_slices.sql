-- The retained slices of each analytics document, in emission order (CONTRACT §5.2):
-- `slice_index` 0 is `overall`; then intent, model, host slices by sort key. `intent` NULL on
-- an intent slice is the unlabelled slice. Trial-level exclusions per class (§5.5) and the
-- failure categories of included trials, in vocabulary order (zero counts omitted).
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.analytics_slices (
    run_id             VARCHAR NOT NULL,
    chain_source       VARCHAR NOT NULL,
    analyzer_version   INTEGER NOT NULL,
    slice_index        INTEGER NOT NULL,
    slice_dimension    VARCHAR NOT NULL,
    intent             VARCHAR,
    provider           VARCHAR,
    model              VARCHAR,
    host_key           VARCHAR,
    host_name          VARCHAR,
    execution_engine   VARCHAR,
    included_trials    BIGINT NOT NULL,
    excluded_lifecycle BIGINT NOT NULL,
    excluded_integrity BIGINT NOT NULL,
    excluded_version   BIGINT NOT NULL,
    failure_categories STRUCT(category VARCHAR, count BIGINT)[] NOT NULL
);
