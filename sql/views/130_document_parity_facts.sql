-- Every analytics document's parity facts (CONTRACT §5.11) from the flat tables it was written
-- from — `run_summary` identities, `analytics_runs` versions and state — with its blockers
-- against itself from the one parity macro (`core.identity_parity_blockers`). Empty
-- `self_blockers` = the run can join a trend partition (all three identities present, no
-- mixed source versions, final); `stage_trend` and the trend's blocked listing read this.
-- A document's blockers against itself depend on which identities it has, its versions and
-- its state — never on the identity values, each equal to itself — so the macro runs once per
-- such kind (a handful in any store) over a small object with the document's own keys
-- (absent keys omitted, as in the document: `json_merge_patch` drops the NULLs), not once per
-- stored document: parsing every document costs seconds at 10,000 runs (bench/trend.py).
-- tests/query/test_trend_queries.py checks the result against the macro over the stored
-- documents and against query/parity.py. `measurementUnit` is the literal every document
-- carries (§5.1: "trial").
-- Grain: one row per (run_id, chain_source, analyzer_version).
-- Reads: core.analytics_runs, core.run_summary.
CREATE OR REPLACE VIEW core.document_parity_facts AS
WITH documents AS (
    SELECT
        a.run_id,
        a.chain_source,
        a.analyzer_version,
        s.suite_id,
        s.completed_at,
        s.run_group_id,
        s.config_revision,
        s.case_set_fingerprint,
        a.stage_analyzer_version,
        a.measurements_schema_version,
        a.source_stage_analyzer_versions IS NOT NULL AS mixed_analyzer_versions,
        a.source_measurements_schema_versions IS NOT NULL AS mixed_measurements_versions,
        a.materialization_state
    FROM core.analytics_runs a
    JOIN core.run_summary s ON s.run_id = a.run_id
),
kinds AS (
    SELECT DISTINCT
        run_group_id IS NOT NULL AS has_run_group,
        config_revision IS NOT NULL AS has_config,
        case_set_fingerprint IS NOT NULL AS has_case_set,
        stage_analyzer_version,
        measurements_schema_version,
        mixed_analyzer_versions,
        mixed_measurements_versions,
        materialization_state
    FROM documents
),
kind_facts AS (
    SELECT
        *,
        json_merge_patch('{}', json_object(
            'measurementUnit', 'trial',
            'runGroupId', CASE WHEN has_run_group THEN 'present' END,
            'configRevision', CASE WHEN has_config THEN 'present' END,
            'caseSetFingerprint', CASE WHEN has_case_set THEN 'present' END,
            'stageAnalyzerVersion', stage_analyzer_version,
            'sourceStageAnalyzerVersions', CASE WHEN mixed_analyzer_versions THEN [0, 1] END,
            'measurementsSchemaVersion', measurements_schema_version,
            'sourceMeasurementsSchemaVersions',
                CASE WHEN mixed_measurements_versions THEN [0, 1] END,
            'materializationState', materialization_state
        )) AS facts
    FROM kinds
),
kind_blockers AS (
    SELECT *, core.identity_parity_blockers(core.parity_identity(facts), core.parity_identity(facts)) AS self_blockers FROM kind_facts
)
SELECT
    d.run_id,
    d.chain_source,
    d.analyzer_version,
    d.suite_id,
    d.completed_at,
    d.run_group_id,
    d.config_revision,
    d.case_set_fingerprint,
    d.stage_analyzer_version,
    d.measurements_schema_version,
    d.materialization_state,
    k.self_blockers
FROM documents d
JOIN kind_blockers k
    ON k.has_run_group = (d.run_group_id IS NOT NULL)
    AND k.has_config = (d.config_revision IS NOT NULL)
    AND k.has_case_set = (d.case_set_fingerprint IS NOT NULL)
    AND k.stage_analyzer_version = d.stage_analyzer_version
    AND k.measurements_schema_version = d.measurements_schema_version
    AND k.mixed_analyzer_versions = d.mixed_analyzer_versions
    AND k.mixed_measurements_versions = d.mixed_measurements_versions
    AND k.materialization_state = d.materialization_state;
