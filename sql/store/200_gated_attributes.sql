-- Purge, step 1: the content-gated attribute values (TRACE-FORMAT §3.6): prompts, outputs,
-- tool arguments and results, expected outputs, widget console errors and screenshots — every
-- id, name, count, outcome, error code and grader result is kept. `action` says what happens:
-- `drop` removes the row; `names` rewrites a JSON list of tool calls to their tool names only
-- (the argument values inside `mcp.app.expect.tool_calls` and `mcp.app.match.result.*`).
-- Grain: one row per (owner_type, owner_row, ordinal). Reads: core.attributes.
CREATE OR REPLACE TEMP TABLE st_gated AS
SELECT
    owner_type,
    owner_row,
    ordinal,
    key,
    large_value_ref,
    CASE
        WHEN key = 'mcp.app.expect.tool_calls'
          OR key IN (
              'mcp.app.match.result.expected', 'mcp.app.match.result.missing',
              'mcp.app.match.result.unexpected', 'mcp.app.match.result.out_of_order',
              'mcp.app.match.result.argument_mismatches'
          )
        THEN 'names'
        ELSE 'drop'
    END AS action
FROM core.attributes
WHERE key IN (
        'input.value', 'output.value', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result',
        'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions',
        'mcp.app.expect.output', 'mcp.app.widget.console_errors',
        'mcp.app.widget.screenshot', 'mcp.app.expect.tool_calls',
        'mcp.app.match.result.expected', 'mcp.app.match.result.missing',
        'mcp.app.match.result.unexpected', 'mcp.app.match.result.out_of_order',
        'mcp.app.match.result.argument_mismatches'
      )
   OR key LIKE 'llm.input_messages.%'
   OR key LIKE 'llm.output_messages.%.message.content'
   OR key LIKE 'llm.output_messages.%.message.contents.%'
   OR key LIKE 'llm.prompts.%'
   OR key LIKE 'llm.choices.%'
   OR key LIKE '%tool_call.function.arguments';
