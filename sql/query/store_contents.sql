-- What the store holds, counted: the traces and span rows it keeps, its runs, and how many of
-- them are eval runs (their trials carry the mcp.app contract; plain OpenTelemetry and
-- OpenInference traces form source-only runs, TRACE-FORMAT §3.8).
-- Grain: one row. Reads: core.spans, core.trials.
SELECT
    (SELECT count(DISTINCT trace_id) FROM core.spans)                AS traces,
    (SELECT count(*) FROM core.spans)                                AS spans,
    (SELECT count(DISTINCT run_id) FROM core.trials)                 AS runs,
    (SELECT count(DISTINCT run_id) FROM core.trials WHERE contract)  AS eval_runs;
