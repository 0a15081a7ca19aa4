-- Each retained slice's signatures unpacked per stage: trials per (stage, reason), split by
-- the class they count as (CONTRACT §5.5; classes of macro 106: 0 no row, 1 notApplicable,
-- 2 notReached, 3 reachUnknown, 4 passed, 5 failed, 6 notMeasured; reason = position in the
-- 29-reason vocabulary, 0 = none). The stage tallies and the reason tallies are both sums
-- of these rows.
-- Grain: one row per (doc_id, slice_index, stage_index, reason). Reads: a_slice_sigs.
CREATE OR REPLACE TEMP TABLE a_slice_stage_reasons AS
WITH unpacked AS (
    SELECT
        s.doc_id,
        s.slice_index,
        CAST(p.stage_index AS TINYINT)                             AS stage_index,
        CAST((s.signature >> (8 * p.stage_index + 5)) & 7 AS TINYINT) AS class,
        CAST((s.signature >> (8 * p.stage_index)) & 31 AS TINYINT)    AS reason,
        s.trials
    FROM a_slice_sigs s
    CROSS JOIN (SELECT unnest(range(6)) AS stage_index) p
)
SELECT
    doc_id, slice_index, stage_index, reason,
    CAST(coalesce(sum(trials) FILTER (class = 1), 0) AS BIGINT) AS not_applicable,
    CAST(coalesce(sum(trials) FILTER (class = 2), 0) AS BIGINT) AS not_reached,
    CAST(coalesce(sum(trials) FILTER (class = 3), 0) AS BIGINT) AS reach_unknown,
    CAST(coalesce(sum(trials) FILTER (class = 4), 0) AS BIGINT) AS passed,
    CAST(coalesce(sum(trials) FILTER (class = 5), 0) AS BIGINT) AS failed,
    CAST(coalesce(sum(trials) FILTER (class = 6), 0) AS BIGINT) AS not_measured
FROM unpacked
WHERE class > 0
GROUP BY doc_id, slice_index, stage_index, reason;
