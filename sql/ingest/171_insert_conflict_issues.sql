-- One W_DUPLICATE_CONFLICT issue per span of this source that conflicts with another of the same
-- key: the batch's kept spans, and this source's stored spans that just became conflicting. In a
-- group of small sources a span conflicts as its source's own import would have found it: with
-- the stored spans, its own source's and earlier sources' of the group — not with a later one
-- (that one gets the issue, as it would imported after it).
-- Grain: one row per conflicting span of this source. Reads: new_spans, conflicts,
-- dropped_spans, stored_keys, newly_conflicting.
INSERT INTO core.issues
WITH kept AS (
    SELECT n.source_id, n.record_index, n.json_path, n.span_row, n.span_id, n.trace_id,
           n.content_hash
    FROM new_spans n
    SEMI JOIN conflicts c ON c.trace_id = n.trace_id AND c.span_id = n.span_id
    WHERE n.span_row NOT IN (SELECT span_row FROM dropped_spans)
), conflicting AS (
    SELECT k.source_id, k.record_index, k.json_path, k.span_row, k.span_id, k.trace_id
    FROM kept k
    WHERE EXISTS (
            SELECT 1 FROM stored_keys s
            WHERE s.trace_id = k.trace_id AND s.span_id = k.span_id
              AND s.content_hash <> k.content_hash)
       OR EXISTS (
            SELECT 1 FROM kept e
            WHERE e.trace_id = k.trace_id AND e.span_id = k.span_id
              AND e.content_hash <> k.content_hash AND e.source_id <= k.source_id)
)
SELECT x.source_id, 'warning', 'W_DUPLICATE_CONFLICT', x.record_index, NULL, NULL, x.json_path,
       x.span_row,
       'span ' || lower(hex(x.span_id)) || ' of trace ' || lower(hex(x.trace_id))
           || ' arrived with different content; every version is kept',
       NULL, $hint, 1
FROM (
    SELECT * FROM conflicting
    UNION ALL
    SELECT source_id, record_index, json_path, span_row, span_id, trace_id FROM newly_conflicting
) x;
