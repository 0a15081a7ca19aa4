-- Delete, step 2: the sources touched, with the spans they lose; `emptied` sources leave the
-- ledger with everything recorded about them (every named source, and any source all of whose
-- stored spans go), the others keep their row with fewer spans.
-- Grain: one row per source_id. Reads: st_spans, core.sources, $source_ids.
CREATE OR REPLACE TEMP TABLE st_sources AS
WITH lost AS (SELECT source_id, count(*) AS spans FROM st_spans GROUP BY source_id)
SELECT
    l.source_id,
    l.path,
    l.sha256,
    coalesce(lost.spans, 0) AS spans,
    l.source_id IN (SELECT unnest(CAST($source_ids AS INTEGER[])))
        OR coalesce(lost.spans, 0) = l.span_rows AS emptied
FROM core.sources l
LEFT JOIN lost USING (source_id)
WHERE lost.source_id IS NOT NULL
   OR l.source_id IN (SELECT unnest(CAST($source_ids AS INTEGER[])));
