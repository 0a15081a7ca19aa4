-- The advisory observations of a trial: grader spans whose check role is advisory. They are
-- shown beside the chain and never decide a stage (CONTRACT §2.5, seed 000 "Observations").
-- Grain: one row per advisory grader span. Reads: core.trials, core.spans, core.attributes.
WITH graders AS (
    SELECT s.span_row
    FROM core.trials t
    JOIN core.spans s ON s.trace_id = t.trace_id
    WHERE t.trial_id = $trial_id AND s.mcp_app_role = 'grader'
), attrs AS (
    SELECT a.owner_row AS span_row, a.key,
           coalesce(a.string_value, CAST(a.bool_value AS VARCHAR), CAST(a.int_value AS VARCHAR),
                    CAST(a.double_value AS VARCHAR), a.json_value) AS value
    FROM core.attributes a
    WHERE a.owner_type = 'span' AND a.owner_row IN (SELECT span_row FROM graders)
      AND a.key IN ('mcp.app.grader.role', 'mcp.app.grader.kind', 'mcp.app.predicate.type',
                    'mcp.app.grader.link', 'mcp.app.grader.passed', 'mcp.app.grader.reason',
                    'mcp.app.grader.status')
)
SELECT
    coalesce(max(value) FILTER (key = 'mcp.app.predicate.type'),
             max(value) FILTER (key = 'mcp.app.grader.kind'))   AS kind,
    max(value) FILTER (key = 'mcp.app.grader.link')    AS stage,
    max(value) FILTER (key = 'mcp.app.grader.status')  AS status,
    max(value) FILTER (key = 'mcp.app.grader.passed')  AS passed,
    max(value) FILTER (key = 'mcp.app.grader.reason')  AS reason
FROM attrs
GROUP BY span_row
HAVING max(value) FILTER (key = 'mcp.app.grader.role') = 'advisory'
ORDER BY span_row;
