-- The decoder's issues of this source, except those of exact duplicates that were not kept:
-- their span is stored once already, and their span_row would point at no span (or, later,
-- at another one). Grain: one row per issue. Reads: staged_issues, dropped_spans.
INSERT INTO core.issues
SELECT source_id, severity, code, record_index, line, byte_offset, json_path,
       span_row + $span_row, message, value_excerpt, hint, occurrences
FROM staged_issues
WHERE span_row IS NULL OR span_row + $span_row NOT IN (SELECT span_row FROM dropped_spans);
