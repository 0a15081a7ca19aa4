-- Trial-level issues the evidence adapter found (TRACE-FORMAT §5.2: missing or repeated trial
-- roots, contract type errors, versions ahead, incomplete runs, id conflicts, …).
-- Grain: one row per issue (per-key notes aggregated with `occurrences`). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.trial_issues (
    trace_id    VARCHAR,  -- lower-case hex, as the evidence adapter reports it
    severity    VARCHAR NOT NULL,
    code        VARCHAR NOT NULL,
    span_id     VARCHAR,
    trial_id    VARCHAR,
    run_id      VARCHAR,
    key         VARCHAR,
    message     VARCHAR NOT NULL,
    hint        VARCHAR,
    occurrences UINTEGER NOT NULL
);
