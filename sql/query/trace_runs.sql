-- Traces with the run each belongs to, for cutting a derivation into batches of whole runs:
-- the trial root's mcp.app.run.id, or the import source for traces without the contract
-- (TRACE-FORMAT §3.8: one run per source). When the trace's trial-role spans name several runs
-- (a conflicting duplicate of the root, a second run id on it), the run its trial is derived
-- into: the first stored root's, its first value (the derive keeps the first copy, §5.2); and
-- the first and last span_row of its spans, so a
-- batch's reads can skip the rest of the store by row range (trace ids are random: a filter on
-- them alone reads every span's id, for every batch).
-- Grain: one row per trace_id. Reads: core.spans, core.attributes, wanted_traces (trace_id:
-- the traces wanted, registered by the caller). Params: $every (every stored trace instead).
WITH wanted AS (
    SELECT trace_id, span_row, source_id, mcp_app_role
    FROM core.spans
    WHERE $every OR trace_id IN (SELECT trace_id FROM wanted_traces)
), run_of AS (
    -- the first stored (span_row, ordinal) as one key: ordinals are 32-bit
    SELECT s.trace_id,
           arg_min(a.string_value, s.span_row::HUGEINT * 4294967296 + a.ordinal) AS run_id
    FROM core.attributes a
    JOIN wanted s ON s.span_row = a.owner_row
    WHERE a.owner_type = 'span' AND a.key = 'mcp.app.run.id' AND s.mcp_app_role = 'trial'
    GROUP BY s.trace_id
), traces AS (
    SELECT trace_id, min(source_id) AS source_id, min(span_row) AS first_span_row,
           max(span_row) AS last_span_row
    FROM wanted
    GROUP BY trace_id
)
SELECT t.trace_id, coalesce(r.run_id, 'source:' || t.source_id) AS run_key, t.first_span_row,
    t.last_span_row
FROM traces t
LEFT JOIN run_of r USING (trace_id)
ORDER BY run_key, t.trace_id;
