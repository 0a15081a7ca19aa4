-- Delete, step 8: the (trace id, span id) keys of departing spans in a conflict group, whose
-- remaining members may stop conflicting (settled by sql/ingest/520, which an unfinished
-- import's undo runs too). Grain: one row per key.
-- Reads: st_spans, core.spans.
CREATE OR REPLACE TEMP TABLE undo_conflict_keys AS
SELECT DISTINCT s.trace_id, s.span_id
FROM core.spans s
WHERE s.span_row IN (SELECT span_row FROM st_spans) AND s.dup_group IS NOT NULL;
