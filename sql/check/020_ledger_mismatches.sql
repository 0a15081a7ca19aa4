-- Run only when the totals differ: every source whose stored spans are not the ones its ledger
-- row lists, and the spans of no listed source (path NULL). Grain: one row per disagreeing
-- source_id. Reads: core.spans, core.sources.
WITH stored AS (
    SELECT source_id, count(*) AS stored FROM core.spans GROUP BY source_id
)
SELECT
    coalesce(l.source_id, s.source_id) AS source_id,
    l.path,
    coalesce(l.span_rows, 0) AS listed,
    coalesce(s.stored, 0) AS stored
FROM core.sources AS l
FULL OUTER JOIN stored AS s ON s.source_id = l.source_id
WHERE l.source_id IS NULL OR coalesce(s.stored, 0) <> l.span_rows
ORDER BY source_id;
