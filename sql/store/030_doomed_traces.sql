-- Delete, step 3: the traces that lose spans; `remaining` ones keep spans of other sources
-- and are derived again, the others lose their trials, chains and documents.
-- Grain: one row per trace_id. Reads: st_spans, core.spans.
CREATE OR REPLACE TEMP TABLE st_traces AS
SELECT
    d.trace_id,
    EXISTS (
        SELECT 1 FROM core.spans s
        WHERE s.trace_id = d.trace_id AND s.span_row NOT IN (SELECT span_row FROM st_spans)
    ) AS remaining
FROM (SELECT DISTINCT trace_id FROM st_spans) d;
