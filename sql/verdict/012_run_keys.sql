-- The run-level verdict inputs per target run (TRACE-FORMAT §3.7.2), read before any trial:
-- the exported run status and project (one value when the trials agree, else NULL), and
-- whether any trial root carries `mcp.app.run.verdict_policy_version` — only such runs need
-- their trials read one by one; the others are legacy runs, decided from run-level keys.
-- Grain: one row per run_id. Reads: core.trials, core.spans, core.attributes.
WITH target AS (
    SELECT run_id, trial_id, trace_id, root_span_id, run_status, project_id
    FROM core.trials
    WHERE $all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])))
), versioned AS (
    SELECT DISTINCT t.run_id
    FROM target t
    JOIN core.spans s ON s.trace_id = t.trace_id AND s.span_id = unhex(t.root_span_id)
    JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
    WHERE a.key = 'mcp.app.run.verdict_policy_version'
)
SELECT t.run_id,
       CASE WHEN count(DISTINCT t.run_status) = 1 THEN any_value(t.run_status) END AS run_status,
       CASE WHEN count(DISTINCT t.project_id) = 1 THEN any_value(t.project_id) END AS project_id,
       t.run_id IN (SELECT run_id FROM versioned) AS versioned
FROM target t
GROUP BY t.run_id
ORDER BY t.run_id;
