-- Exact duplicates (same trace id, span id and content hash) of a span already in the store
-- (earlier sources, or earlier batches of this source) or earlier in this batch: kept once,
-- counted (TRACE-FORMAT §5.2 I_DUPLICATE_IDENTICAL). The store is probed by trace id first, one
-- narrow column, and compared in full only for the stored spans of the batch's traces.
-- Grain: one row per dropped span. Reads: new_spans, core.spans.
CREATE OR REPLACE TEMP TABLE dropped_spans AS
WITH stored AS (
    SELECT s.trace_id, s.span_id, s.content_hash
    FROM core.spans s
    WHERE s.trace_id IN (SELECT DISTINCT trace_id FROM new_spans)
)
SELECT n.span_row
FROM new_spans n
WHERE EXISTS (
        SELECT 1 FROM stored s
        WHERE s.trace_id = n.trace_id AND s.span_id = n.span_id
          AND s.content_hash = n.content_hash)
   OR EXISTS (
        SELECT 1 FROM new_spans m
        WHERE m.trace_id = n.trace_id AND m.span_id = n.span_id
          AND m.content_hash = n.content_hash AND m.span_row < n.span_row);
