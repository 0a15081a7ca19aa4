-- Expected tool calls, harness error and called tools of the pages' non-passing trials
-- (CONTRACT §6.7: `expected`, `observed`). Kept as the temporary table v_page_details that
-- 046 reads.
-- Grain: one row per non-passing trial on a page.
-- Reads: v_pages, core.spans, core.attributes.
CREATE OR REPLACE TEMP TABLE v_page_details AS
WITH page AS (
    SELECT run_id, trial_id, trace_id, root_span_id
    FROM v_pages
    WHERE trial_result IS DISTINCT FROM 'passed'
), roots AS (
    SELECT p.run_id, p.trial_id,
           max(coalesce(a.string_value, a.json_value)) FILTER (a.key = 'mcp.app.expect.tool_calls')
               AS expect_tool_calls,
           max(a.string_value) FILTER (a.key = 'mcp.app.trial.error') AS error
    FROM page p
    JOIN core.spans s ON s.trace_id = p.trace_id AND s.span_id = unhex(p.root_span_id)
        AND s.trace_id IN (SELECT trace_id FROM page)  -- a one-key filter first (as 011)
    LEFT JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
         AND a.key IN ('mcp.app.expect.tool_calls', 'mcp.app.trial.error')
    GROUP BY p.run_id, p.trial_id
), calls AS (
    SELECT p.run_id, p.trial_id,
           list(a.string_value ORDER BY s.start_time_unix_nano, s.span_row) AS tool_names
    FROM page p
    JOIN core.spans s ON s.trace_id = p.trace_id AND s.mcp_app_role = 'tool_call'
        AND s.trace_id IN (SELECT trace_id FROM page)
    JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
         AND a.key = 'tool.name'
    GROUP BY p.run_id, p.trial_id
)
SELECT r.run_id, r.trial_id, r.expect_tool_calls, r.error, coalesce(c.tool_names, []) AS tool_names
FROM roots r
LEFT JOIN calls c USING (run_id, trial_id);
