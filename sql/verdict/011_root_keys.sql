-- The verdict keys of TRACE-FORMAT §3.7.2 on the target runs' trial roots, long and typed, so
-- the reader can refuse a mistyped or out-of-range value instead of coercing it (item 6):
-- policy version, pass thresholds, validity settings, configured trials, a legacy run's
-- stored verdict and summary. Runs: every run when $all_runs, else the listed ones.
-- Grain: one row per (trial root, key) present. Reads: core.trials, core.spans, core.attributes.
SELECT t.run_id, t.trial_id, lower(hex(t.trace_id)) AS trace_id, a.key, a.value_type,
       a.string_value, a.int_value, a.double_value, a.bool_value
FROM core.trials t
JOIN core.spans s ON s.trace_id = t.trace_id AND s.span_id = unhex(t.root_span_id)
    -- the same traces as a one-key filter too: the scan then skips other traces' rows before
    -- the two-key join (1 run of a 1M-trial store: 0.19 s -> 0.11; every run: 4.3 -> 3.7)
    AND s.trace_id IN (SELECT trace_id FROM core.trials
                       WHERE $all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[]))))
JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
WHERE ($all_runs OR t.run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[]))))
  AND a.key IN ('mcp.app.run.verdict_policy_version', 'mcp.app.suite.default_pass_threshold',
                'mcp.app.case.pass_threshold', 'mcp.app.suite.validity.min_eligible_trials',
                'mcp.app.suite.validity.min_completion_rate',
                'mcp.app.suite.validity.max_evaluator_error_rate', 'mcp.app.run.verdict',
                'mcp.app.run.summary.total', 'mcp.app.run.summary.passed',
                'mcp.app.run.summary.failed', 'mcp.app.trial.repetitions_configured')
ORDER BY t.run_id, t.trial_id, a.key, a.ordinal;
