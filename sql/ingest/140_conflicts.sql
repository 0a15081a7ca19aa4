-- Conflicting duplicates: one (trace id, span id) with different content. All rows are kept and
-- share a dup_group (the smallest span_row of the group) (TRACE-FORMAT §5.2 W_DUPLICATE_CONFLICT).
-- `newly_reported` marks stored spans of this same source (an earlier batch) that were not in a
-- conflict yet: they get the issue a one-batch import would have given them.
-- Grain: one row per conflicting key touched by this batch. Reads: new_spans, dropped_spans,
-- stored_keys (the stored spans of the batch's keys, sql/ingest/115).
CREATE OR REPLACE TEMP TABLE conflicts AS
WITH kept_new AS (
    SELECT trace_id, span_id, span_row, content_hash FROM new_spans
    WHERE span_row NOT IN (SELECT span_row FROM dropped_spans)
), candidates AS (
    SELECT trace_id, span_id, span_row, content_hash FROM kept_new
    UNION ALL
    SELECT s.trace_id, s.span_id, s.span_row, s.content_hash
    FROM stored_keys s SEMI JOIN kept_new k ON s.trace_id = k.trace_id AND s.span_id = k.span_id
)
SELECT trace_id, span_id, min(span_row) AS dup_group
FROM candidates
GROUP BY trace_id, span_id
HAVING count(DISTINCT content_hash) > 1;
