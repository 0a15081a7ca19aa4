-- Undoing an unfinished import, step 1: the (trace id, span id) keys of its spans that are in a
-- conflict group, whose older members may have been given a dup_group by this import.
-- Grain: one row per key. Reads: core.spans.
CREATE OR REPLACE TEMP TABLE undo_conflict_keys AS
SELECT DISTINCT trace_id, span_id
FROM core.spans
WHERE span_row >= $span_row AND dup_group IS NOT NULL;
