-- The producer's own verdict beside valuechain's derived chain, per trial of an MCPJam SDK run
-- (`verify`, docs/mcpjam-sdk.md §5): the SDK's `passed` (`mcp.app.trial.result`), the derived
-- chain at $analyzer, and the evidence that says why the two may differ — the model's error,
-- the tools that failed, the predicate rows that failed, each matcher turn — and the SDK's
-- score rows (`mcp.app.claim.scores`, JSON text: 6.x only), its claim beside `passed`.
-- Inputs: $run, a run id or NULL for every run; $analyzer, the derived chains' version.
-- Grain: one row per trial whose spans come from an `mcpjam-sdk/*` export producer.
-- Reads: main.trials, main.spans, main.attributes, main.stage_chain, main.trial_outcome.
WITH sdk_traces AS (
    SELECT DISTINCT s.trace_id
    FROM main.spans s
    JOIN main.attributes r ON r.owner_type = 'resource' AND r.owner_row = s.resource_row
    WHERE r.key = 'mcp.app.export.producer' AND starts_with(r.string_value, 'mcpjam-sdk/')
),
trial_scope AS (
    SELECT t.*
    FROM main.trials t
    JOIN sdk_traces USING (trace_id)
    WHERE ($run IS NULL OR t.run_id = $run) AND t.exclusion_class IS NULL
),
span_facts AS (
    SELECT
        s.trace_id,
        s.span_row,
        s.name,
        s.status_name,
        s.mcp_app_role,
        max(a.string_value) FILTER (WHERE a.key = 'error.type')                    AS error_type,
        max(a.string_value) FILTER (WHERE a.key = 'tool.name')                     AS tool_name,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.tool.outcome')          AS tool_outcome,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.grader.kind')           AS grader_kind,
        bool_or(a.bool_value) FILTER (WHERE a.key = 'mcp.app.grader.passed')       AS grader_passed,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.grader.reason')         AS grader_reason,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.grader.role')           AS grader_role,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.grader.status')         AS grader_status,
        max(a.int_value) FILTER (WHERE a.key = 'mcp.app.grader.turn_index')        AS turn_index,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.predicate.type')        AS predicate_type,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.match.result.missing')  AS missing,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.match.result.unexpected') AS unexpected,
        max(a.string_value)
            FILTER (WHERE a.key = 'mcp.app.match.result.argument_mismatches')      AS mismatches,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.trial.error')           AS trial_error,
        max(a.string_value)
            FILTER (WHERE a.key = 'mcp.app.trial.step_error.source')               AS step_error_source,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.match.extra_tool_calls') AS extra_tool_calls,
        max(a.string_value) FILTER (WHERE a.key = 'mcp.app.claim.scores')          AS score_claims
    FROM main.spans s
    JOIN trial_scope t USING (trace_id)
    LEFT JOIN main.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
    GROUP BY ALL
),
evidence AS (
    SELECT
        trace_id,
        max(trial_error) FILTER (WHERE mcp_app_role = 'trial')                     AS trial_error,
        max(step_error_source) FILTER (WHERE mcp_app_role = 'trial')               AS step_error_source,
        max(extra_tool_calls) FILTER (WHERE mcp_app_role = 'trial')                AS extra_tool_calls,
        max(score_claims) FILTER (WHERE mcp_app_role = 'trial')                    AS score_claims,
        list(name ORDER BY span_row) FILTER (WHERE error_type = 'sdk_error')        AS model_errors,
        list({'tool': tool_name, 'outcome': tool_outcome} ORDER BY span_row)
            FILTER (WHERE mcp_app_role = 'tool_call' AND tool_outcome <> 'ok')      AS tool_failures,
        list({'type': coalesce(predicate_type, 'unknown'), 'reason': grader_reason,
              'role': grader_role, 'status': grader_status} ORDER BY span_row)
            FILTER (WHERE grader_kind = 'predicate' AND grader_passed = false)      AS failed_predicates,
        list({'turn': turn_index, 'passed': grader_passed, 'missing': missing,
              'unexpected': unexpected, 'mismatches': mismatches} ORDER BY turn_index, span_row)
            FILTER (WHERE grader_kind = 'matcher')                                  AS matcher_turns
    FROM span_facts
    GROUP BY trace_id
),
chains AS (
    SELECT
        trial_id,
        list({'stage': stage, 'state': state, 'reason': reason} ORDER BY stage_index) AS chain
    FROM main.stage_chain
    WHERE source = 'derived' AND analyzer_version = $analyzer
    GROUP BY trial_id
)
SELECT
    t.run_id,
    t.trial_id,
    t.case_title,
    t.provider,
    t.model,
    t.repetition,
    t.is_negative,
    t.trial_result                      AS producer_result,
    o.first_failed_stage,
    o.failure_category,
    c.chain,
    e.trial_error,
    e.step_error_source,
    e.extra_tool_calls,
    e.score_claims,
    coalesce(e.model_errors, [])        AS model_errors,
    coalesce(e.tool_failures, [])       AS tool_failures,
    coalesce(e.failed_predicates, [])   AS failed_predicates,
    coalesce(e.matcher_turns, [])       AS matcher_turns
FROM trial_scope t
JOIN chains c USING (trial_id)
LEFT JOIN main.trial_outcome o
  ON o.trial_id = t.trial_id AND o.source = 'derived' AND o.analyzer_version = $analyzer
LEFT JOIN evidence e USING (trace_id)
ORDER BY t.run_id, t.case_title, t.provider, t.model, t.repetition, t.trial_id;
