-- Exact duplicates (same trace id, span id and content hash) of a span already in the store
-- (earlier sources, or earlier batches of this source) or earlier in this batch: kept once,
-- counted (TRACE-FORMAT §5.2 I_DUPLICATE_IDENTICAL). The store is compared only through the
-- stored spans of the batch's keys (sql/ingest/115).
-- Grain: one row per dropped span, with the source that sent it. Reads: new_spans, stored_keys.
CREATE OR REPLACE TEMP TABLE dropped_spans AS
SELECT n.span_row, n.source_id
FROM new_spans n
WHERE EXISTS (
        SELECT 1 FROM stored_keys s
        WHERE s.trace_id = n.trace_id AND s.span_id = n.span_id
          AND s.content_hash = n.content_hash)
   OR EXISTS (
        SELECT 1 FROM new_spans m
        WHERE m.trace_id = n.trace_id AND m.span_id = n.span_id
          AND m.content_hash = n.content_hash AND m.span_row < n.span_row);
