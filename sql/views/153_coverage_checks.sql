-- Every check an eval trial's export carries, with the link it can decide for coverage
-- (issue 19): a predicate grader row by its kind's route at the current analyzer (CONTRACT
-- §2.5; an unknown kind or none: userValue); the tool-call matcher (`toolCalls:match`) for
-- selection (its per-turn rows, which derivation reads as turn summaries; a case-scoped one
-- is listed, never counted) and, from the case's expected calls unless argument matching is
-- `ignore`, its argument half (`toolCalls:arguments`) for call; the goal judge
-- (`judge:goalCompletion`) for userValue unless it was not requested. A gating row that
-- errored still counts: the case authors it. Advisory rows (role exactly `advisory`), the
-- observation kinds whatever their role (§3.1) and the other judges decide nothing
-- (`decides` NULL); they are listed at the link they file at (§3.2, else the row's
-- `mcp.app.grader.link`). `gating` / `routed_stage` say what derivation itself does with a
-- predicate row (a gating observation decides there), for the lint. The first occurrence of
-- a duplicated key is read (TRACE-FORMAT §5.2); a key of the wrong type reads as absent.
-- Grain: one row per (trial_id, grader span) plus up to two per trial for root expectations.
-- Reads: core.trials, core.spans, core.attributes, core.large_values, core.check_routes.
CREATE OR REPLACE VIEW core.coverage_checks AS
WITH trials AS (
    SELECT trial_id, run_id, suite_id, trace_id, coalesce(case_id, case_key, trial_id) AS case_ref
    FROM core.trials
    WHERE contract
), owned AS (
    SELECT s.span_row, s.trace_id, s.mcp_app_role AS role
    FROM core.spans s
    WHERE s.mcp_app_role IN ('grader', 'trial')
      AND s.trace_id IN (SELECT trace_id FROM trials)
), firsts AS (  -- the first occurrence of each key (TRACE-FORMAT §5.2)
    SELECT a.owner_row AS span_row, a.key,
           arg_min(a.string_value, a.ordinal) AS value,
           arg_min(a.large_value_ref, a.ordinal) AS value_ref
    FROM core.attributes a
    WHERE a.owner_type = 'span' AND a.owner_row IN (SELECT span_row FROM owned)
      AND a.key IN (
        'mcp.app.grader.kind', 'mcp.app.grader.scorer_id', 'mcp.app.grader.role',
        'mcp.app.grader.status', 'mcp.app.grader.link', 'mcp.app.predicate.type',
        'mcp.app.judge.name', 'mcp.app.judge.pending_kind', 'mcp.app.match.result.expected',
        'mcp.app.expect.tool_calls', 'mcp.app.match.argument_matching', 'mcp.app.grader.scope'
    )
    GROUP BY a.owner_row, a.key
), pivoted AS (  -- one row per grader or root span: the keys coverage reads
    SELECT
        span_row,
        max(value) FILTER (key = 'mcp.app.grader.kind')        AS grader_kind,
        max(value) FILTER (key = 'mcp.app.grader.scorer_id')   AS scorer_id,
        max(value) FILTER (key = 'mcp.app.grader.role')        AS check_role,
        max(value) FILTER (key = 'mcp.app.grader.status')      AS status,
        max(value) FILTER (key = 'mcp.app.grader.link')        AS link,
        max(value) FILTER (key = 'mcp.app.predicate.type')     AS kind,
        max(value) FILTER (key = 'mcp.app.judge.name')         AS judge_name,
        max(value) FILTER (key = 'mcp.app.judge.pending_kind') AS pending_kind,
        max(value) FILTER (key = 'mcp.app.grader.scope')       AS scope,
        max(value) FILTER (key IN ('mcp.app.match.result.expected', 'mcp.app.expect.tool_calls'))
                                                               AS expected,
        max(value_ref)
            FILTER (key IN ('mcp.app.match.result.expected', 'mcp.app.expect.tool_calls'))
                                                               AS expected_ref,
        max(value) FILTER (key = 'mcp.app.match.argument_matching') AS argument_matching
    FROM firsts
    GROUP BY span_row
), attrs AS (
    SELECT t.trial_id, o.span_row, o.role, p.* EXCLUDE (span_row, expected, expected_ref),
           coalesce(p.expected, lv.string_value) AS expected  -- a long list may be stored apart
    FROM pivoted p
    JOIN owned o USING (span_row)
    JOIN trials t USING (trace_id)
    LEFT JOIN core.large_values lv ON lv.large_value_ref = p.expected_ref
), per_trial AS (  -- the case's expected calls and its argument matching (root, else default)
    SELECT
        trial_id,
        bool_or(coalesce(TRY(json_array_length(expected)), 0) > 0) AS expects_calls,
        coalesce(max(argument_matching) FILTER (role = 'trial'), 'partial') AS argument_matching
    FROM attrs
    WHERE role = 'trial' OR grader_kind = 'matcher'
    GROUP BY trial_id
), graders AS (
    SELECT
        a.trial_id, a.span_row, a.grader_kind, a.status,
        a.grader_kind = 'matcher' AND a.scope IS NOT DISTINCT FROM 'turn' AS turn_matcher,
        a.check_role IS DISTINCT FROM 'advisory' AS gating,
        CASE
            WHEN a.grader_kind = 'predicate' THEN coalesce(a.kind, a.scorer_id, 'predicate')
            WHEN a.grader_kind = 'matcher' THEN 'toolCalls:match'
            ELSE coalesce('judge:' || a.judge_name, a.scorer_id, a.grader_kind, 'grader')
        END AS check_kind,
        CASE WHEN a.grader_kind = 'predicate'
            THEN coalesce(r.routed_stage, 'userValue') END AS routed_stage,
        coalesce(r.observation, false) AS observation,
        coalesce(
            r.filed_link,
            CASE WHEN a.link IN (SELECT stage FROM core.coverage_stages) THEN a.link END,
            'userValue'
        ) AS files_at,
        a.grader_kind NOT IN ('predicate', 'matcher')
            AND coalesce(a.judge_name, regexp_extract(a.scorer_id, '^judge:(.*)$', 1))
                = 'goalCompletion' AS goal_judge,
        a.pending_kind
    FROM attrs a
    LEFT JOIN core.check_routes r
        ON r.analyzer_version = core.current_stage_analyzer_version() AND r.kind = a.kind
        AND a.grader_kind = 'predicate'
    WHERE a.role = 'grader'
), checks AS (
    SELECT
        trial_id, span_row, check_kind, gating, status, routed_stage, observation,
        CASE
            WHEN turn_matcher THEN 'selection'
            WHEN goal_judge THEN CASE WHEN pending_kind IS DISTINCT FROM 'not_requested'
                THEN 'userValue' END
            WHEN grader_kind = 'predicate' AND gating AND NOT observation THEN routed_stage
        END AS decides,
        CASE WHEN grader_kind = 'matcher' THEN 'selection' ELSE files_at END AS files_at,
        goal_judge AND pending_kind IS NOT DISTINCT FROM 'not_requested' AS not_requested
    FROM graders
    UNION ALL
    SELECT trial_id, NULL, 'toolCalls:match', true, NULL, NULL, false, 'selection', 'selection',
           false
    FROM per_trial WHERE expects_calls
    UNION ALL
    SELECT trial_id, NULL, 'toolCalls:arguments', true, NULL, NULL, false, 'call', 'call', false
    FROM per_trial WHERE expects_calls AND argument_matching <> 'ignore'
)
SELECT t.suite_id, t.run_id, t.case_ref, c.trial_id, c.span_row, c.check_kind, c.gating,
       c.status, c.observation, c.routed_stage, c.decides, c.files_at
FROM checks c
JOIN trials t USING (trial_id)
WHERE NOT c.not_requested;
