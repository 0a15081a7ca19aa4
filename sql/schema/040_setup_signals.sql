-- Per-trial copies of the run-level setup signals, the input of the setup tallies
-- (CONTRACT §2.2 `setupSignals`, §5.6, Q20; TRACE-FORMAT §3.5 `mcp.app.setup.<phase>.*`).
-- Filled by the evidence step: one row per phase a trial carries a signal for; a trial
-- without a signal has no row (TRACE-FORMAT §3.7.1 (1)). `phase` is `connection` or
-- `discovery` (others are ignored by the tallies); absent attribution/egress stay NULL.
-- Grain: one row per (trial_id, phase). Reads: nothing (evidence step).
CREATE TABLE IF NOT EXISTS core.setup_signals (
    trial_id        VARCHAR NOT NULL,
    run_id          VARCHAR NOT NULL,
    phase           VARCHAR NOT NULL,
    outcome         VARCHAR NOT NULL,
    attribution     VARCHAR,
    egress_verified BOOLEAN,
    duration_ms     DOUBLE
);
