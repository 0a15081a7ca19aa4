-- Six rows per trial per (source, analyzer_version): the stage state and reason (CONTRACT §2.1).
-- source = 'derived' (valuechain's own analyzer) or 'producer' (the export's persisted chain).
-- No PRIMARY KEY: rows are replaced by delete-then-insert, which DuckDB indexes make costly.
-- Grain: one row per (trial_id, source, analyzer_version, stage_index). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.stage_chain (
    trial_id         VARCHAR NOT NULL,
    run_id           VARCHAR NOT NULL,
    source           VARCHAR NOT NULL,
    analyzer_version INTEGER NOT NULL,
    stage_index      TINYINT NOT NULL,
    stage            VARCHAR NOT NULL,
    state            VARCHAR NOT NULL,
    reason           VARCHAR,
    evidence         VARCHAR
);
