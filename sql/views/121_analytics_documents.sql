-- The stored `EvalStageAnalyticsV1` documents (CONTRACT §5), one per run, chain source and
-- reader analyzer version.
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: core.analytics_documents.
CREATE OR REPLACE VIEW main.analytics_documents AS
SELECT run_id, chain_source, analyzer_version, document
FROM core.analytics_documents;
