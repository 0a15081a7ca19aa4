-- The `EvalStageAnalyticsV1` documents as JSON text (CONTRACT §5.1–§5.7): keys in the
-- contract's order, absent keys omitted (never null), zero exclusion counts omitted, numbers
-- as `JSON.stringify` prints them — the canonical form `StageAnalyticsV1.to_json()` produces.
-- Written for a cheap plan, which is most of the cost of materializing one run: each text is
-- one flat concat() of parts that are never NULL (a long `||` chain nests, and DuckDB's
-- optimizer is quadratic in the depth), and each CTE expands core.js_json_string and
-- core.js_number once, over a list of its strings or numbers, instead of once per field.
-- An optional key stays `coalesce(',"key":' || value, '')`: absent when the value is NULL.
-- Grain: one row per document. Reads: a_doc_facts, a_slices, a_slice_stages, a_setup.
CREATE OR REPLACE TEMP TABLE a_documents AS
WITH tallies AS (
    SELECT
        t.doc_id, t.slice_index, t.stage_index,
        concat(
            '{"stage":"', t.stage,
            '","applicable":', t.applicable,
            ',"reached":', t.reached,
            ',"notReached":', t.not_reached,
            ',"reachUnknown":', t.reach_unknown,
            ',"measured":', t.measured,
            ',"passed":', t.passed,
            ',"failed":', t.failed,
            ',"notMeasured":', t.not_measured,
            ',"notApplicable":', t.not_applicable,
            ',"excluded":{', concat_ws(',',
                CASE WHEN t.not_applicable > 0 THEN '"notApplicable":' || t.not_applicable END,
                CASE WHEN t.reach_unknown > 0 THEN '"reachUnknown":' || t.reach_unknown END,
                CASE WHEN t.not_measured > 0 THEN '"notMeasured":' || t.not_measured END),
            '},"reasons":[', array_to_string(list_transform(t.reasons,
                lambda r: concat('{"reason":"', $reasons[r.reason_index + 1], '","count":',
                                 r.count, '}')), ','),
            ']',
            CASE WHEN t.latency_count > 0 THEN concat(
                ',"latency":{"unit":"ms","basis":"evidence_span_union","sampleCount":',
                t.latency_count,
                ',"totalMs":', t.ms[1], ',"minMs":', t.ms[2], ',"maxMs":', t.ms[3], '}')
            ELSE '' END,
            '}') AS json
    FROM (
        SELECT *,
               list_transform([latency_total_ms, latency_min_ms, latency_max_ms],
                              lambda x: core.js_number(x)) AS ms
        FROM a_slice_stages
    ) t
), stages AS (
    SELECT doc_id, slice_index,
           array_to_string(list_transform(list_sort(list({'i': stage_index, 'json': json})),
                                          lambda t: t.json), ',') AS json
    FROM tallies
    GROUP BY doc_id, slice_index
), slices AS (
    SELECT
        s.doc_id, s.slice_index,
        concat(
            '{"slice":', CASE s.slice_dimension
                WHEN 'overall' THEN '{"dimension":"overall"}'
                WHEN 'intent' THEN concat('{"dimension":"intent","intent":',
                                          coalesce(s.q[1], 'null'), '}')
                WHEN 'model' THEN concat('{"dimension":"model","provider":', s.q[2],
                                         ',"model":', s.q[3], '}')
                ELSE concat('{"dimension":"host","hostKey":', s.q[4],
                            coalesce(',"hostName":' || s.q[5], ''),
                            coalesce(',"executionEngine":' || s.q[6], ''), '}')
            END,
            ',"includedTrials":', s.included_trials,
            ',"excludedTrials":{', concat_ws(',',
                CASE WHEN s.excluded_lifecycle > 0 THEN '"lifecycle":' || s.excluded_lifecycle END,
                CASE WHEN s.excluded_integrity > 0 THEN '"integrity":' || s.excluded_integrity END,
                CASE WHEN s.excluded_version > 0 THEN '"version":' || s.excluded_version END),
            '},"failureCategories":[', array_to_string(list_transform(s.failure_categories,
                lambda c: concat('{"category":"', c.category, '","count":', c.count, '}')), ','),
            '],"stages":[', st.json, ']}') AS json
    FROM (
        SELECT *,
               list_transform([intent, provider, model, host_key, host_name, execution_engine],
                              lambda v: core.js_json_string(v)) AS q
        FROM a_slices
        WHERE retained
    ) s
    JOIN stages st USING (doc_id, slice_index)
), slice_lists AS (
    SELECT doc_id,
           array_to_string(list_transform(list_sort(list({'i': slice_index, 'json': json})),
                                          lambda s: s.json), ',') AS json
    FROM slices
    GROUP BY doc_id
), truncations AS (
    SELECT doc_id,
           string_agg(concat('{"dimension":"', slice_dimension, '","distinctValues":',
                             distinct_values, ',"retained":', retained_values, '}'),
                      ',' ORDER BY dimension_order) AS json
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
           string_agg(concat('{"phase":"', phase,
               '","uniqueAttempts":', unique_attempts,
               ',"failedAttempts":', failed_attempts,
               ',"serverAttributedFailures":', server_attributed_failures,
               ',"impactedTrials":', impacted_trials,
               CASE WHEN latency_ms IS NOT NULL THEN concat(
                   ',"latency":{"unit":"ms","basis":"setup_phase_wall","sampleCount":1',
                   ',"totalMs":', ms, ',"minMs":', ms, ',"maxMs":', ms, '}')
               ELSE '' END,
               '}'), ',' ORDER BY phase_index) AS json
    FROM (SELECT *, core.js_number(latency_ms) AS ms FROM a_setup)
    GROUP BY run_id
)
SELECT
    f.doc_id, f.run_id, f.chain_source, f.analyzer_version,
    concat(
        '{"schemaVersion":1,"measurementUnit":"trial"',
        ',"runId":', f.q[1],
        ',"suiteId":', f.q[2],
        coalesce(',"runGroupId":' || f.q[3], ''),
        coalesce(',"configRevision":' || f.q[4], ''),
        coalesce(',"caseSetFingerprint":' || f.q[5], ''),
        CASE WHEN epoch_ms(f.run_completed_at) >= 0
             THEN ',"runCompletedAt":' || epoch_ms(f.run_completed_at) ELSE '' END,
        ',"sourceIterationCount":', f.total_trials,
        ',"stageAnalyzerVersion":', f.stage_analyzer_version,
        coalesce(',"sourceStageAnalyzerVersions":['
                 || array_to_string(f.source_stage_analyzer_versions, ',') || ']', ''),
        ',"measurementsSchemaVersion":', f.measurements_schema_version,
        coalesce(',"sourceMeasurementsSchemaVersions":['
                 || array_to_string(f.source_measurements_schema_versions, ',') || ']', ''),
        ',"materializationState":"', f.materialization_state, '"',
        ',"createdAt":', epoch_ms(f.created_at),
        ',"updatedAt":', epoch_ms(f.updated_at),
        ',"includedTrials":', f.included_trials,
        ',"excludedTrials":{', concat_ws(',',
            CASE WHEN f.excluded_lifecycle > 0 THEN '"lifecycle":' || f.excluded_lifecycle END,
            CASE WHEN f.excluded_integrity > 0 THEN '"integrity":' || f.excluded_integrity END,
            CASE WHEN f.excluded_version > 0 THEN '"version":' || f.excluded_version END),
        '},"totalTrials":', f.total_trials,
        ',"excludedTrialDetail":{', array_to_string(list_transform(f.excluded_trial_detail,
            lambda e: concat('"', e.detail, '":', e.count)), ','),
        '},"slices":[', l.json, ']',
        ',"setup":[', coalesce(u.json, ''), ']',
        coalesce(',"sliceTruncation":[' || x.json || ']', ''),
        '}') AS document
FROM (
    SELECT *,
           list_transform([run_id, suite_id, run_group_id, config_revision, case_set_fingerprint],
                          lambda v: core.js_json_string(v)) AS q
    FROM a_doc_facts
) f
JOIN slice_lists l USING (doc_id)
LEFT JOIN truncations x USING (doc_id)
LEFT JOIN setups u USING (run_id);
