-- The runs, of those asked, whose trials come from MCPJam SDK results (an `mcpjam-sdk/*` export
-- producer, docs/mcpjam-sdk.md): compare and trend name the SDK option that would supply an
-- identity such a run lacks. Inputs: $runs, a list of run ids.
-- Grain: one row per SDK run among $runs. Reads: main.trials, main.spans, main.attributes.
SELECT DISTINCT t.run_id
FROM main.trials t
JOIN main.spans s ON s.trace_id = t.trace_id AND s.span_id = t.root_span_id
JOIN main.attributes r ON r.owner_type = 'resource' AND r.owner_row = s.resource_row
WHERE list_contains($runs, t.run_id)
  AND r.key = 'mcp.app.export.producer'
  AND starts_with(r.string_value, 'mcpjam-sdk/')
ORDER BY t.run_id;
