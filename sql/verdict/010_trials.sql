-- The verdict inputs of the target runs' trials that core.trials carries (CONTRACT §6.2,
-- TRACE-FORMAT §3.7.2): lifecycle status, task result, the configured execution variant
-- (provider, model — the host is not part of it), the case, and the evaluator-error flag
-- (`mcp.app.evidence.evaluator_errored`, only a literal TRUE counts). Runs: every run when
-- $all_runs, else the listed ones.
-- Grain: one row per (trial_id, trace_id). Reads: core.trials, core.trial_flags.
SELECT t.run_id, t.trial_id, lower(hex(t.trace_id)) AS trace_id, t.root_span_id,
       t.iteration_number, t.case_id, t.case_key, t.case_title, t.provider, t.model, t.status,
       t.trial_result, t.run_status, t.project_id, t.contract,
       coalesce(f.evaluator_errored, false) AS evaluator_errored
FROM core.trials t
LEFT JOIN core.trial_flags f ON f.trial_id = t.trial_id AND f.run_id = t.run_id
WHERE $all_runs OR t.run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])))
ORDER BY t.run_id, t.iteration_number NULLS LAST, t.trial_id;
