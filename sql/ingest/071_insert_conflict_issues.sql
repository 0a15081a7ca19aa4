-- One W_DUPLICATE_CONFLICT issue per new span that conflicts with another of the same key.
-- Grain: one row per conflicting new span. Reads: new_spans, conflicts, dropped_spans.
INSERT INTO core.issues
SELECT $source_id, 'warning', 'W_DUPLICATE_CONFLICT', n.record_index, NULL, NULL, n.json_path,
       n.span_row,
       'span ' || lower(hex(n.span_id)) || ' of trace ' || lower(hex(n.trace_id))
           || ' arrived with different content; every version is kept',
       NULL, $hint, 1
FROM new_spans n
JOIN conflicts c ON c.trace_id = n.trace_id AND c.span_id = n.span_id
WHERE n.span_row NOT IN (SELECT span_row FROM dropped_spans);
