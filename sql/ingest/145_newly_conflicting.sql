-- Stored spans of this source (earlier batches; a group of small sources has none) that this
-- batch puts into a conflict for the first time: they get their W_DUPLICATE_CONFLICT issue now,
-- so a source read in batches reports exactly what it reports read in one. Grain: one row per such span. Reads: conflicts, core.spans.
CREATE OR REPLACE TEMP TABLE newly_conflicting AS
SELECT s.source_id, s.span_row, s.record_index, s.json_path, s.trace_id, s.span_id
FROM core.spans s
JOIN conflicts c ON c.trace_id = s.trace_id AND c.span_id = s.span_id
WHERE s.source_id >= $source_id AND s.dup_group IS NULL;
