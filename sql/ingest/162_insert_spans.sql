-- Grain: one row per kept new span. Reads: new_spans, dropped_spans, conflicts.
INSERT INTO core.spans BY NAME
SELECT n.* EXCLUDE (json_path), n.json_path, c.dup_group
FROM new_spans n
LEFT JOIN conflicts c ON c.trace_id = n.trace_id AND c.span_id = n.span_id
WHERE n.span_row NOT IN (SELECT span_row FROM dropped_spans);
