-- The parity facts of every analytics document (CONTRACT §5.11), read from the flat tables the
-- document was written from (`run_summary` identities, `analytics_runs` versions and state) as
-- a small JSON object with the document's own keys — absent keys omitted, as in the document
-- (`json_merge_patch` drops the NULLs) — and the run's blockers against itself, from the one
-- parity macro (`core.document_parity_blockers`). Empty `self_blockers` = the run can join a
-- trend partition. Reading these few facts instead of parsing every stored document keeps a
-- trend over thousands of runs cheap (bench/trend.py); tests/query/test_trend_queries.py
-- checks they give the same blockers as the documents themselves.
-- `measurementUnit` is the literal every document carries (§5.1: always "trial").
-- Grain: one row per (run_id, chain_source, analyzer_version).
-- Reads: core.analytics_runs, core.run_summary.
CREATE OR REPLACE VIEW core.document_parity_facts AS
WITH facts AS (
    SELECT
        a.run_id,
        a.chain_source,
        a.analyzer_version,
        json_merge_patch('{}', json_object(
            'measurementUnit', 'trial',
            'runGroupId', s.run_group_id,
            'configRevision', s.config_revision,
            'caseSetFingerprint', s.case_set_fingerprint,
            'stageAnalyzerVersion', a.stage_analyzer_version,
            'sourceStageAnalyzerVersions', a.source_stage_analyzer_versions,
            'measurementsSchemaVersion', a.measurements_schema_version,
            'sourceMeasurementsSchemaVersions', a.source_measurements_schema_versions,
            'materializationState', a.materialization_state
        )) AS facts
    FROM core.analytics_runs a
    JOIN core.run_summary s ON s.run_id = a.run_id
)
SELECT run_id, chain_source, analyzer_version, facts,
       core.document_parity_blockers(facts, facts) AS self_blockers
FROM facts;
