-- Widen the traces an import touched to every trace of the runs they belong to (by the trial
-- root's mcp.app.run.id), so run-level facts see the whole run. Traces without a contract run
-- id (plain OpenInference/GenAI traces) stay as they are: their run is their import source.
-- Grain: one row per trace_id. Reads: touched_traces, core.spans, core.attributes.
WITH run_of AS (
    SELECT DISTINCT s.trace_id, a.string_value AS run_id
    FROM core.attributes a
    JOIN core.spans s ON s.span_row = a.owner_row
    WHERE a.owner_type = 'span' AND a.key = 'mcp.app.run.id' AND s.mcp_app_role = 'trial'
)
SELECT trace_id FROM touched_traces
UNION
SELECT r.trace_id FROM run_of r
WHERE r.run_id IN (
    SELECT run_id FROM run_of WHERE trace_id IN (SELECT trace_id FROM touched_traces))
ORDER BY trace_id;
