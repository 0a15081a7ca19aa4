-- Per-trial evidence flags the stage funnel classifies on that core.trials does not carry:
-- `evaluator_errored` = `mcp.app.evidence.evaluator_errored` (CONTRACT §5.4 step 1; TRACE-FORMAT
-- §3.7). Filled by the evidence step; no row (or NULL) means the flag was absent, and only a
-- literal TRUE excludes the trial (`evaluatorErrored === true`).
-- Grain: one row per (trial_id, run_id). Reads: nothing (evidence step).
CREATE TABLE IF NOT EXISTS core.trial_flags (
    trial_id          VARCHAR NOT NULL,
    run_id            VARCHAR NOT NULL,
    evaluator_errored BOOLEAN
);
