-- The cases of two runs, side by side material for `compare` (the Python side decides each
-- case's change). A case is matched across runs by its stable key (`mcp.app.case.key`, else
-- its id); trials without either are not a case and are left out.
-- Per case × execution variant (CONTRACT §6.3, TRACE-FORMAT §3.7.2): eligible trials are the
-- completed ones with a `passed`/`failed` result and no evaluator error; the variant passes
-- when passed / eligible ≥ the threshold (`mcp.app.case.pass_threshold`, else
-- `mcp.app.suite.default_pass_threshold`, else 1: every graded trial passed; the strictest
-- value when trials disagree), is `inconclusive` with no eligible trial, else fails. A case
-- fails when any variant fails, else is inconclusive when any variant is, else passes.
-- `tokens` / `duration_ms` are totals over the case's trials in that run, NULL when any
-- trial lacks one (a partial total would read as a saving). Sums are over one run's trials.
-- Grain: one row per (run_id, case_ref) of the two runs.
-- Reads: core.trials, core.trial_flags, core.spans, core.attributes. Params: $run_a, $run_b.
WITH trial AS (
    SELECT t.run_id, coalesce(t.case_key, t.case_id) AS case_ref, t.case_id, t.case_title,
           t.provider, t.model, t.trial_result, t.input_tokens, t.output_tokens, t.duration_ms,
           t.iteration_number, t.trace_id, t.root_span_id,
           t.status = 'completed' AND t.trial_result IN ('passed', 'failed')
               AND f.evaluator_errored IS NOT TRUE AS eligible
    FROM core.trials t
    LEFT JOIN core.trial_flags f ON f.trial_id = t.trial_id AND f.run_id = t.run_id
    WHERE t.run_id IN ($run_a, $run_b) AND coalesce(t.case_key, t.case_id) IS NOT NULL
),
root_keys AS (
    SELECT t.trace_id, t.root_span_id,
           max(coalesce(a.double_value, a.int_value))
               FILTER (a.key = 'mcp.app.case.pass_threshold')          AS case_threshold,
           max(coalesce(a.double_value, a.int_value))
               FILTER (a.key = 'mcp.app.suite.default_pass_threshold') AS suite_threshold,
           max(a.string_value) FILTER (a.key = 'mcp.app.case.content_hash') AS content_hash
    FROM trial t
    JOIN core.spans s ON s.trace_id = t.trace_id AND s.span_id = unhex(t.root_span_id)
    JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
    WHERE a.key IN ('mcp.app.case.pass_threshold', 'mcp.app.suite.default_pass_threshold',
                    'mcp.app.case.content_hash')
    GROUP BY t.trace_id, t.root_span_id
),
graded AS (
    SELECT t.*, coalesce(k.case_threshold, k.suite_threshold, 1.0) AS threshold,
           k.content_hash
    FROM trial t
    LEFT JOIN root_keys k ON k.trace_id = t.trace_id AND k.root_span_id = t.root_span_id
),
variant AS (
    SELECT run_id, case_ref, provider, model,
           CASE WHEN count(*) FILTER (eligible) = 0 THEN 'inconclusive'
                WHEN count(*) FILTER (eligible AND trial_result = 'passed')::DOUBLE
                     / count(*) FILTER (eligible) >= max(threshold) THEN 'passed'
                ELSE 'failed' END AS verdict
    FROM graded
    GROUP BY run_id, case_ref, provider, model
),
cases AS (
    SELECT run_id, case_ref,
           min(case_id)    AS case_id,
           min(case_title) AS title,
           CASE WHEN count(*) FILTER (input_tokens IS NULL OR output_tokens IS NULL) = 0
                THEN sum(input_tokens + output_tokens) END::BIGINT AS tokens,
           CASE WHEN count(*) FILTER (duration_ms IS NULL) = 0 THEN sum(duration_ms) END
               AS duration_ms,
           list(DISTINCT content_hash ORDER BY content_hash)
               FILTER (content_hash IS NOT NULL) AS content_hashes,
           list(DISTINCT coalesce(provider, '') || '/' || coalesce(model, '')
                ORDER BY coalesce(provider, '') || '/' || coalesce(model, '')) AS variants,
           min(iteration_number) AS first_iteration
    FROM graded
    GROUP BY run_id, case_ref
)
SELECT c.run_id, c.case_ref, c.case_id, c.title, c.tokens, c.duration_ms,
       coalesce(c.content_hashes, []) AS content_hashes, c.variants, c.first_iteration,
       CASE WHEN bool_or(v.verdict = 'failed') THEN 'failed'
            WHEN bool_or(v.verdict = 'inconclusive') THEN 'inconclusive'
            ELSE 'passed' END AS verdict
FROM cases c
JOIN variant v ON v.run_id = c.run_id AND v.case_ref = c.case_ref
GROUP BY ALL
ORDER BY c.run_id, c.first_iteration NULLS LAST, c.case_ref;
