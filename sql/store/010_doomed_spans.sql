-- Delete, step 1: the spans to remove — every span of the named sources ($source_ids), or
-- every span of the traces holding a trial of the named run ($run_id; NULL when deleting
-- sources). Grain: one row per span_row. Reads: core.spans, core.trials.
CREATE OR REPLACE TEMP TABLE st_spans AS
SELECT span_row, trace_id, source_id, resource_row, scope_row
FROM core.spans
WHERE source_id IN (SELECT unnest(CAST($source_ids AS INTEGER[])))
   OR trace_id IN (SELECT trace_id FROM core.trials WHERE run_id = $run_id);
