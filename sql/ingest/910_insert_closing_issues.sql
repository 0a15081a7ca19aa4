-- The source-level issues (decompression, invalid UTF-8, mixed id encodings) and the aggregated
-- flavour notes with their final occurrence counts, written once after the last batch.
-- Grain: one row per issue. Reads: staged_closing_issues.
INSERT INTO core.issues
SELECT source_id, severity, code, record_index, line, byte_offset, json_path,
       span_row + $span_row, message, value_excerpt, hint, occurrences
FROM staged_closing_issues;
