-- One W_DUPLICATE_CONFLICT issue per span of this source that conflicts with another of the same
-- key: the batch's kept spans, and this source's stored spans that just became conflicting.
-- Grain: one row per conflicting span of this source. Reads: new_spans, conflicts,
-- dropped_spans, newly_conflicting.
INSERT INTO core.issues
SELECT $source_id, 'warning', 'W_DUPLICATE_CONFLICT', x.record_index, NULL, NULL, x.json_path,
       x.span_row,
       'span ' || lower(hex(x.span_id)) || ' of trace ' || lower(hex(x.trace_id))
           || ' arrived with different content; every version is kept',
       NULL, $hint, 1
FROM (
    SELECT n.record_index, n.json_path, n.span_row, n.span_id, n.trace_id
    FROM new_spans n
    JOIN conflicts c ON c.trace_id = n.trace_id AND c.span_id = n.span_id
    WHERE n.span_row NOT IN (SELECT span_row FROM dropped_spans)
    UNION ALL
    SELECT record_index, json_path, span_row, span_id, trace_id FROM newly_conflicting
) x;
