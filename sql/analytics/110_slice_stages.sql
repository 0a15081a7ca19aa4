-- The six stage tallies of each retained slice (CONTRACT §5.3), zeros included:
-- applicable = reached + notReached + reachUnknown, reached = measured + notMeasured,
-- measured = passed + failed; `reasons` = (vocabulary position, count) of every counted row's
-- reason, notApplicable rows included, in vocabulary order, zero counts omitted. The latency
-- aggregate of §5.7 (count 0 ⇒ none): the exact total is rounded once to a double and kept
-- within [min × n, max × n], the bounds a reader checks.
-- Grain: one row per (doc_id, retained slice_index, stage_index).
-- Reads: a_slices, a_slice_stage_reasons, a_slice_sigs.
CREATE OR REPLACE TEMP TABLE a_slice_stages AS
WITH tallies AS (
    SELECT
        doc_id, slice_index, stage_index,
        sum(not_applicable) AS not_applicable,
        sum(not_reached)    AS not_reached,
        sum(reach_unknown)  AS reach_unknown,
        sum(passed)         AS passed,
        sum(failed)         AS failed,
        sum(not_measured)   AS not_measured,
        list_sort(list({
            'reason_index': reason - 1,
            'count': not_applicable + not_reached + reach_unknown + passed + failed + not_measured
        }) FILTER (reason > 0))  AS reasons
    FROM a_slice_stage_reasons
    GROUP BY doc_id, slice_index, stage_index
), latency AS (
    SELECT doc_id, slice_index, 2 AS stage_index, sum(latency_2_count) AS n,
           sum(latency_2_total) AS total, min(latency_2_min) AS lo, max(latency_2_max) AS hi
    FROM a_slice_sigs GROUP BY doc_id, slice_index
    UNION ALL
    SELECT doc_id, slice_index, 3, sum(latency_3_count), sum(latency_3_total),
           min(latency_3_min), max(latency_3_max)
    FROM a_slice_sigs GROUP BY doc_id, slice_index
    UNION ALL
    SELECT doc_id, slice_index, 4, sum(latency_4_count), sum(latency_4_total),
           min(latency_4_min), max(latency_4_max)
    FROM a_slice_sigs GROUP BY doc_id, slice_index
), positions AS (
    SELECT s.doc_id, s.slice_index, s.slice_dimension, s.intent, s.provider, s.model,
           s.host_key, CAST(p.stage_index AS TINYINT) AS stage_index
    FROM a_slices s
    CROSS JOIN (SELECT unnest(range(6)) AS stage_index) p
    WHERE s.retained
), counted AS (
    SELECT
        p.*,
        coalesce(t.not_reached, 0)    AS not_reached,
        coalesce(t.reach_unknown, 0)  AS reach_unknown,
        coalesce(t.passed, 0)         AS passed,
        coalesce(t.failed, 0)         AS failed,
        coalesce(t.not_measured, 0)   AS not_measured,
        coalesce(t.not_applicable, 0) AS not_applicable,
        coalesce(t.reasons, [])       AS reasons,
        l.n, l.total, l.lo, l.hi
    FROM positions p
    LEFT JOIN tallies t USING (doc_id, slice_index, stage_index)
    LEFT JOIN latency l USING (doc_id, slice_index, stage_index)
)
SELECT
    doc_id, slice_index, slice_dimension, intent, provider, model, host_key, stage_index,
    $stages[stage_index + 1]                                              AS stage,
    CAST(passed + failed + not_measured + not_reached + reach_unknown AS BIGINT) AS applicable,
    CAST(passed + failed + not_measured AS BIGINT)                        AS reached,
    CAST(not_reached AS BIGINT)                                           AS not_reached,
    CAST(reach_unknown AS BIGINT)                                         AS reach_unknown,
    CAST(passed + failed AS BIGINT)                                       AS measured,
    CAST(passed AS BIGINT)                                                AS passed,
    CAST(failed AS BIGINT)                                                AS failed,
    CAST(not_measured AS BIGINT)                                          AS not_measured,
    CAST(not_applicable AS BIGINT)                                        AS not_applicable,
    reasons,
    CAST(coalesce(n, 0) AS BIGINT)                                        AS latency_count,
    CASE WHEN n > 0 THEN least(greatest(CAST(total AS DOUBLE), lo * n), hi * n) END
                                                                          AS latency_total_ms,
    CASE WHEN n > 0 THEN lo END                                           AS latency_min_ms,
    CASE WHEN n > 0 THEN hi END                                           AS latency_max_ms
FROM counted;
