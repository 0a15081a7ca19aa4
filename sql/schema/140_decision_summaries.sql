-- The run decision summaries (`EvalRunDecisionSummary` v1, CONTRACT §6.6), one per run, chain
-- source and reader analyzer version (the same keys as core.analytics_documents): the verdict
-- does not depend on the chains, the first page of diagnostics under it does (§6.7).
-- `measurement_unit` is what the counts count (`caseVariant` for a v2 decision, `trial` for a
-- legacy run's stored summary); NULL when the summary has no counts (source `none`, or a
-- legacy run without a valid summary). `document` is the summary itself, first page included.
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: nothing (materialize).
CREATE TABLE IF NOT EXISTS core.decision_summaries (
    run_id             VARCHAR NOT NULL,
    chain_source       VARCHAR NOT NULL,
    analyzer_version   INTEGER NOT NULL,
    run_status         VARCHAR NOT NULL,
    verdict            VARCHAR NOT NULL,
    verdict_source     VARCHAR NOT NULL,
    undecided_reason   VARCHAR,
    measurement_unit   VARCHAR,
    counted_total      INTEGER,
    counted_passed     INTEGER,
    counted_failed     INTEGER,
    counted_inconclusive INTEGER,
    reasons            VARCHAR[],
    diagnostics_complete BOOLEAN NOT NULL,
    diagnostics_items  INTEGER NOT NULL,
    scanned_iterations INTEGER NOT NULL,
    document           JSON NOT NULL
);
