-- The decoder's issues of this source. Grain: one row per issue. Reads: staged_issues.
INSERT INTO core.issues
SELECT $source_id, severity, code, record_index, line, byte_offset, json_path,
       span_row + $span_row, message, value_excerpt, hint, occurrences
FROM staged_issues;
