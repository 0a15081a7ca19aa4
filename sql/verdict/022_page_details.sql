-- What a diagnostic item shows beside the chain (CONTRACT §6.7): the case's expected tool calls
-- (`mcp.app.expect.tool_calls`, a JSON string on the trial root), the harness error
-- (`mcp.app.trial.error`), and the tools actually called (`tool.name` of the trace's
-- `tool_call` spans, in start order).
-- Grain: one row per trial of the page. Reads: core.trials, core.spans, core.attributes.
WITH page AS (
    SELECT trial_id, trace_id, root_span_id
    FROM core.trials
    WHERE run_id = $run_id AND trial_id IN (SELECT unnest(CAST($trial_ids AS VARCHAR[])))
), roots AS (
    SELECT p.trial_id, p.trace_id,
           max(coalesce(a.string_value, a.json_value)) FILTER (a.key = 'mcp.app.expect.tool_calls')
               AS expect_tool_calls,
           max(a.string_value) FILTER (a.key = 'mcp.app.trial.error') AS error
    FROM page p
    JOIN core.spans s ON s.trace_id = p.trace_id AND s.span_id = unhex(p.root_span_id)
    LEFT JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
         AND a.key IN ('mcp.app.expect.tool_calls', 'mcp.app.trial.error')
    GROUP BY p.trial_id, p.trace_id
), calls AS (
    SELECT p.trial_id,
           list(a.string_value ORDER BY s.start_time_unix_nano, s.span_row) AS tool_names
    FROM page p
    JOIN core.spans s ON s.trace_id = p.trace_id AND s.mcp_app_role = 'tool_call'
    JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
         AND a.key = 'tool.name'
    GROUP BY p.trial_id
)
SELECT r.trial_id, r.expect_tool_calls, r.error, coalesce(c.tool_names, []) AS tool_names
FROM roots r
LEFT JOIN calls c USING (trial_id);
