-- Document-level figures (CONTRACT §5.1, §5.5, §5.9, §5.10): trial counts by class and detail
-- (zero counts omitted, vocabulary order); the analyzer and measurement-schema versions of
-- the INCLUDED trials — the newest when they differ, then with the ascending distinct list —
-- or the reader's own when nothing was included; the materialization state (the export's
-- when present, else `final` for a terminal run whose included chains owe no judge verdict
-- (an applicable `judgePending` row), else `provisional`); `createdAt` kept from the row being replaced.
-- Grain: one row per document. Reads: a_docs, a_run_facts, a_records, a_slice_stage_reasons,
-- a_target_runs, core.analytics_runs.
CREATE OR REPLACE TEMP TABLE a_doc_facts AS
WITH records AS (
    SELECT
        doc_id,
        count(*)                                         AS total_trials,
        count(*) FILTER (exclusion_detail IS NULL)       AS included_trials,
        count(*) FILTER (exclusion_class = 'lifecycle')  AS excluded_lifecycle,
        count(*) FILTER (exclusion_class = 'integrity')  AS excluded_integrity,
        count(*) FILTER (exclusion_class = 'version')    AS excluded_version,
        list_sort(list_distinct(coalesce(
            list(chain_version) FILTER (chain_version IS NOT NULL), []
        )))                                              AS analyzer_versions,
        list_sort(list_distinct(coalesce(
            list(measurements_schema_version) FILTER (measurements_schema_version IS NOT NULL),
            []
        )))                                              AS measurements_versions
    FROM a_records
    GROUP BY doc_id
), details AS (
    SELECT
        doc_id,
        list({'detail': exclusion_detail, 'count': trials}
             ORDER BY list_position($details, exclusion_detail)) AS excluded_trial_detail
    FROM (
        SELECT doc_id, exclusion_detail, count(*) AS trials
        FROM a_records
        WHERE exclusion_detail IS NOT NULL
        GROUP BY doc_id, exclusion_detail
    )
    GROUP BY doc_id
), pending AS (
    SELECT DISTINCT doc_id
    FROM a_slice_stage_reasons
    WHERE slice_index = 0 AND reason = list_position($reasons, 'judgePending')
        AND not_reached + reach_unknown + passed + failed + not_measured > 0  -- applicable
), previous AS (
    SELECT a.run_id, a.chain_source, a.analyzer_version, a.created_at
    FROM core.analytics_runs a
    JOIN a_target_runs USING (run_id)
)
SELECT
    d.doc_id, d.run_id, d.chain_source, d.analyzer_version,
    f.suite_id, f.run_group_id, f.config_revision, f.case_set_fingerprint,
    f.document_completed_at                                  AS run_completed_at,
    coalesce(r.total_trials, 0)                              AS total_trials,
    coalesce(r.included_trials, 0)                           AS included_trials,
    coalesce(r.excluded_lifecycle, 0)                        AS excluded_lifecycle,
    coalesce(r.excluded_integrity, 0)                        AS excluded_integrity,
    coalesce(r.excluded_version, 0)                          AS excluded_version,
    coalesce(x.excluded_trial_detail, [])                    AS excluded_trial_detail,
    CAST(CASE WHEN coalesce(len(r.analyzer_versions), 0) = 0 THEN d.analyzer_version
              ELSE list_max(r.analyzer_versions) END AS INTEGER) AS stage_analyzer_version,
    CASE WHEN len(r.analyzer_versions) >= 2 THEN r.analyzer_versions END
                                                             AS source_stage_analyzer_versions,
    CAST(CASE WHEN coalesce(len(r.measurements_versions), 0) = 0
              THEN $reader_measurements_version
              ELSE list_max(r.measurements_versions) END AS INTEGER)
                                                             AS measurements_schema_version,
    CASE WHEN len(r.measurements_versions) >= 2 THEN r.measurements_versions END
                                                             AS source_measurements_schema_versions,
    coalesce(
        f.exported_materialization_state,
        CASE WHEN f.run_terminal AND p.doc_id IS NULL THEN 'final' ELSE 'provisional' END
    )                                                        AS materialization_state,
    coalesce(prev.created_at, to_timestamp(0) + to_milliseconds($now_ms)) AS created_at,
    to_timestamp(0) + to_milliseconds($now_ms)               AS updated_at
FROM a_docs d
JOIN a_run_facts f USING (run_id)
LEFT JOIN records r USING (doc_id)
LEFT JOIN details x USING (doc_id)
LEFT JOIN pending p USING (doc_id)
LEFT JOIN previous prev USING (run_id, chain_source, analyzer_version);
