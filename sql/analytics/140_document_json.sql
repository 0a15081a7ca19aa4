-- The `EvalStageAnalyticsV1` documents as JSON text (CONTRACT §5.1–§5.7): keys in the
-- contract's order, absent keys omitted (never null), zero exclusion counts omitted, numbers
-- as `JSON.stringify` prints them — the canonical form `StageAnalyticsV1.to_json()` produces.
-- Grain: one row per document. Reads: a_doc_facts, a_slices, a_slice_stages, a_setup.
CREATE OR REPLACE TEMP TABLE a_documents AS
WITH tallies AS (
    SELECT
        t.doc_id, t.slice_index, t.stage_index,
        '{"stage":"' || t.stage
        || '","applicable":' || t.applicable
        || ',"reached":' || t.reached
        || ',"notReached":' || t.not_reached
        || ',"reachUnknown":' || t.reach_unknown
        || ',"measured":' || t.measured
        || ',"passed":' || t.passed
        || ',"failed":' || t.failed
        || ',"notMeasured":' || t.not_measured
        || ',"notApplicable":' || t.not_applicable
        || ',"excluded":{' || concat_ws(',',
               CASE WHEN t.not_applicable > 0 THEN '"notApplicable":' || t.not_applicable END,
               CASE WHEN t.reach_unknown > 0 THEN '"reachUnknown":' || t.reach_unknown END,
               CASE WHEN t.not_measured > 0 THEN '"notMeasured":' || t.not_measured END)
        || '},"reasons":[' || array_to_string(list_transform(t.reasons,
               lambda r: '{"reason":"' || $reasons[r.reason_index + 1] || '","count":' || r.count || '}'),
               ',') || ']'
        || CASE WHEN t.latency_count > 0 THEN
               ',"latency":{"unit":"ms","basis":"evidence_span_union","sampleCount":'
               || t.latency_count
               || ',"totalMs":' || core.js_number(t.latency_total_ms)
               || ',"minMs":' || core.js_number(t.latency_min_ms)
               || ',"maxMs":' || core.js_number(t.latency_max_ms) || '}'
           ELSE '' END
        || '}' AS json
    FROM a_slice_stages t
), stages AS (
    SELECT doc_id, slice_index,
           array_to_string(list_transform(list_sort(list({'i': stage_index, 'json': json})),
                                          lambda t: t.json), ',') AS json
    FROM tallies
    GROUP BY doc_id, slice_index
), slices AS (
    SELECT
        s.doc_id, s.slice_index,
        '{"slice":' || CASE s.slice_dimension
            WHEN 'overall' THEN '{"dimension":"overall"}'
            WHEN 'intent' THEN '{"dimension":"intent","intent":'
                || coalesce(core.js_json_string(s.intent), 'null') || '}'
            WHEN 'model' THEN '{"dimension":"model","provider":' || core.js_json_string(s.provider)
                || ',"model":' || core.js_json_string(s.model) || '}'
            ELSE '{"dimension":"host","hostKey":' || core.js_json_string(s.host_key)
                || coalesce(',"hostName":' || core.js_json_string(s.host_name), '')
                || coalesce(',"executionEngine":' || core.js_json_string(s.execution_engine), '')
                || '}'
        END
        || ',"includedTrials":' || s.included_trials
        || ',"excludedTrials":{' || concat_ws(',',
               CASE WHEN s.excluded_lifecycle > 0 THEN '"lifecycle":' || s.excluded_lifecycle END,
               CASE WHEN s.excluded_integrity > 0 THEN '"integrity":' || s.excluded_integrity END,
               CASE WHEN s.excluded_version > 0 THEN '"version":' || s.excluded_version END)
        || '},"failureCategories":[' || array_to_string(list_transform(s.failure_categories,
               lambda c: '{"category":"' || c.category || '","count":' || c.count || '}'), ',')
        || '],"stages":[' || st.json || ']}' AS json
    FROM a_slices s
    JOIN stages st USING (doc_id, slice_index)
    WHERE s.retained
), slice_lists AS (
    SELECT doc_id,
           array_to_string(list_transform(list_sort(list({'i': slice_index, 'json': json})),
                                          lambda s: s.json), ',') AS json
    FROM slices
    GROUP BY doc_id
), truncations AS (
    SELECT doc_id,
           string_agg('{"dimension":"' || slice_dimension || '","distinctValues":' || distinct_values
                      || ',"retained":' || retained_values || '}', ',' ORDER BY dimension_order)
               AS json
    FROM (
        SELECT doc_id, slice_dimension, dimension_order,
               max(distinct_values) AS distinct_values,
               count(*) FILTER (retained) AS retained_values
        FROM a_slices
        WHERE slice_dimension <> 'overall'
        GROUP BY doc_id, slice_dimension, dimension_order
        HAVING count(*) FILTER (NOT retained) > 0
    )
    GROUP BY doc_id
), setups AS (
    SELECT run_id,
           string_agg('{"phase":"' || phase
               || '","uniqueAttempts":' || unique_attempts
               || ',"failedAttempts":' || failed_attempts
               || ',"serverAttributedFailures":' || server_attributed_failures
               || ',"impactedTrials":' || impacted_trials
               || CASE WHEN latency_ms IS NOT NULL THEN
                      ',"latency":{"unit":"ms","basis":"setup_phase_wall","sampleCount":1'
                      || ',"totalMs":' || core.js_number(latency_ms)
                      || ',"minMs":' || core.js_number(latency_ms)
                      || ',"maxMs":' || core.js_number(latency_ms) || '}'
                  ELSE '' END
               || '}', ',' ORDER BY phase_index) AS json
    FROM a_setup
    GROUP BY run_id
)
SELECT
    f.doc_id, f.run_id, f.chain_source, f.analyzer_version,
    '{"schemaVersion":1,"measurementUnit":"trial"'
    || ',"runId":' || core.js_json_string(f.run_id)
    || ',"suiteId":' || core.js_json_string(f.suite_id)
    || coalesce(',"runGroupId":' || core.js_json_string(f.run_group_id), '')
    || coalesce(',"configRevision":' || core.js_json_string(f.config_revision), '')
    || coalesce(',"caseSetFingerprint":' || core.js_json_string(f.case_set_fingerprint), '')
    || CASE WHEN epoch_ms(f.run_completed_at) >= 0
            THEN ',"runCompletedAt":' || epoch_ms(f.run_completed_at) ELSE '' END
    || ',"sourceIterationCount":' || f.total_trials
    || ',"stageAnalyzerVersion":' || f.stage_analyzer_version
    || coalesce(',"sourceStageAnalyzerVersions":['
                || array_to_string(f.source_stage_analyzer_versions, ',') || ']', '')
    || ',"measurementsSchemaVersion":' || f.measurements_schema_version
    || coalesce(',"sourceMeasurementsSchemaVersions":['
                || array_to_string(f.source_measurements_schema_versions, ',') || ']', '')
    || ',"materializationState":"' || f.materialization_state || '"'
    || ',"createdAt":' || epoch_ms(f.created_at)
    || ',"updatedAt":' || epoch_ms(f.updated_at)
    || ',"includedTrials":' || f.included_trials
    || ',"excludedTrials":{' || concat_ws(',',
           CASE WHEN f.excluded_lifecycle > 0 THEN '"lifecycle":' || f.excluded_lifecycle END,
           CASE WHEN f.excluded_integrity > 0 THEN '"integrity":' || f.excluded_integrity END,
           CASE WHEN f.excluded_version > 0 THEN '"version":' || f.excluded_version END)
    || '},"totalTrials":' || f.total_trials
    || ',"excludedTrialDetail":{' || array_to_string(list_transform(f.excluded_trial_detail,
           lambda e: '"' || e.detail || '":' || e.count), ',')
    || '},"slices":[' || l.json || ']'
    || ',"setup":[' || coalesce(u.json, '') || ']'
    || coalesce(',"sliceTruncation":[' || x.json || ']', '')
    || '}' AS document
FROM a_doc_facts f
JOIN slice_lists l USING (doc_id)
LEFT JOIN truncations x USING (doc_id)
LEFT JOIN setups u USING (run_id);
