-- Tool calls expected against the calls made, per trial, for the HTML report's failing trials:
-- what the case expects (`mcp.app.expect.tool_calls` on the trial root), each `tool_call` span
-- in start order (name, input arguments, outcome), and the export's matcher result on its
-- `toolCalls:match` grader spans (missing, unexpected, out of order, argument mismatches: a
-- list of JSON texts as recorded, one per matcher span — one per turn; null when
-- none). Input: $trials, a list of trial ids.
-- Grain: one row per trial of $trials. Reads: main.trials, main.spans, main.attributes.
WITH picked AS (
    SELECT trial_id, trace_id, root_span_id
    FROM main.trials
    WHERE list_contains($trials, trial_id)
),
attrs AS (
    SELECT p.trial_id, s.span_row, s.span_id, s.start_time_unix_nano, s.mcp_app_role, s.name,
           a.key, coalesce(a.string_value, CAST(a.json_value AS VARCHAR)) AS value
    FROM picked AS p
    JOIN main.spans AS s ON s.trace_id = p.trace_id
    JOIN main.attributes AS a ON a.owner_type = 'span' AND a.owner_row = s.span_row
    WHERE s.mcp_app_role IN ('trial', 'tool_call', 'grader')
),
calls AS (
    SELECT trial_id, span_row, min(start_time_unix_nano) AS started,
           max(value) FILTER (WHERE key = 'tool.name')            AS tool,
           max(value) FILTER (WHERE key = 'input.value')          AS arguments,
           max(value) FILTER (WHERE key = 'mcp.app.tool.outcome') AS outcome
    FROM attrs
    WHERE mcp_app_role = 'tool_call'
    GROUP BY trial_id, span_row
),
matched AS (
    SELECT trial_id,
           list(value ORDER BY span_row) FILTER (WHERE key = 'mcp.app.match.result.missing')             AS missing,
           list(value ORDER BY span_row) FILTER (WHERE key = 'mcp.app.match.result.unexpected')          AS unexpected,
           list(value ORDER BY span_row) FILTER (WHERE key = 'mcp.app.match.result.out_of_order')        AS out_of_order,
           list(value ORDER BY span_row) FILTER (WHERE key = 'mcp.app.match.result.argument_mismatches') AS mismatches,
           max(value) FILTER (WHERE key = 'mcp.app.expect.tool_calls')                AS expected
    FROM attrs
    GROUP BY trial_id
)
SELECT
    p.trial_id,
    m.expected,
    m.missing,
    m.unexpected,
    m.out_of_order,
    m.mismatches,
    (SELECT list({'tool': c.tool, 'arguments': c.arguments, 'outcome': c.outcome}
                 ORDER BY c.started, c.span_row)
     FROM calls AS c WHERE c.trial_id = p.trial_id)                     AS actual
FROM picked AS p
LEFT JOIN matched AS m USING (trial_id)
ORDER BY p.trial_id;
