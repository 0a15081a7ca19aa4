-- The names beside one run's ids for the HTML report: each trial's case id and title, and the
-- suite name its trial root span carries (`mcp.app.suite.name`; null when the export has none).
-- Grain: one row per trial of $run_id. Reads: main.trials, main.attributes.
SELECT
    t.trial_id,
    t.case_id,
    t.case_title,
    t.suite_id,
    a.string_value AS suite_name
FROM main.trials AS t
LEFT JOIN main.attributes AS a
  ON a.owner_type = 'span' AND a.trace_id = t.trace_id AND a.span_id = t.root_span_id
 AND a.key = 'mcp.app.suite.name'
WHERE t.run_id = $run_id
ORDER BY t.trial_id;
