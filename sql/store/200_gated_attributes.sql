-- Purge, step 1: the content-gated attribute values (TRACE-FORMAT §3.6): prompts, outputs,
-- tool arguments and results, expected outputs, widget console errors and screenshots — every
-- id, name, count, outcome, error code and grader result is kept. `action` says what happens:
-- `drop` removes the row; `cut` rewrites a JSON list of tool calls to `names`, their tool names
-- only (the argument values inside `mcp.app.expect.tool_calls` and `mcp.app.match.result.*`);
-- `keep` leaves such a list that holds no more than its tool names (an empty one, say) as it
-- is, so the purge counts the rows it changes, not the lists it reads. A tool-call value that is
-- no JSON list, or a large value, is dropped.
-- Grain: one row per (owner_type, owner_row, ordinal). Reads: core.attributes.
CREATE OR REPLACE TEMP TABLE st_gated AS
WITH gated AS (
    SELECT
        owner_type,
        owner_row,
        ordinal,
        key,
        large_value_ref,
        string_value,
        key IN (
            'mcp.app.expect.tool_calls',
            'mcp.app.match.result.expected', 'mcp.app.match.result.missing',
            'mcp.app.match.result.unexpected', 'mcp.app.match.result.out_of_order',
            'mcp.app.match.result.argument_mismatches'
        ) AND large_value_ref IS NULL
          -- DuckDB may evaluate a function before the test that guards it: only the value
          -- that is valid JSON reaches json_type
          AND coalesce(json_type(CASE WHEN json_valid(string_value) THEN string_value END)
                       = 'ARRAY', false) AS tool_calls
    FROM core.attributes
    WHERE key IN (
            'input.value', 'output.value', 'gen_ai.tool.call.arguments',
            'gen_ai.tool.call.result', 'gen_ai.input.messages', 'gen_ai.output.messages',
            'gen_ai.system_instructions', 'mcp.app.expect.output',
            'mcp.app.widget.console_errors', 'mcp.app.widget.screenshot',
            'mcp.app.expect.tool_calls',
            'mcp.app.match.result.expected', 'mcp.app.match.result.missing',
            'mcp.app.match.result.unexpected', 'mcp.app.match.result.out_of_order',
            'mcp.app.match.result.argument_mismatches'
          )
       OR key LIKE 'llm.input_messages.%'
       OR key LIKE 'llm.output_messages.%.message.content'
       OR key LIKE 'llm.output_messages.%.message.contents.%'
       OR key LIKE 'llm.prompts.%'
       OR key LIKE 'llm.choices.%'
       OR key LIKE '%tool_call.function.arguments'
),
named AS (
    SELECT
        *,
        to_json(list_transform(
            CAST(list_value AS JSON[]),
            lambda x: json_object('toolName', coalesce(x->>'toolName', x->>'name'))
        ))::VARCHAR AS names,
        json(list_value)::VARCHAR AS written  -- compact, as `names` is: only a cut differs
    FROM (SELECT *, CASE WHEN tool_calls THEN string_value END AS list_value FROM gated)
)
SELECT
    owner_type,
    owner_row,
    ordinal,
    key,
    large_value_ref,
    CASE WHEN NOT tool_calls THEN 'drop' WHEN names = written THEN 'keep' ELSE 'cut' END
        AS action,
    CASE WHEN tool_calls AND names <> written THEN names END AS names
FROM named;
