-- The stage analytics documents, verbatim: the source of truth the flattened tables are cut
-- from (CONTRACT §5, §5.12). One per run, chain source and reader analyzer version; a run with
-- no row here is UNMEASURED (§5.10), never an empty funnel.
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: nothing (materialize).
CREATE TABLE IF NOT EXISTS core.analytics_documents (
    run_id           VARCHAR NOT NULL,
    chain_source     VARCHAR NOT NULL,
    analyzer_version INTEGER NOT NULL,
    document         JSON NOT NULL
);
