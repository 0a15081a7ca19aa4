-- Setup tallies (CONTRACT §5.6, Q20), run-level, from every per-trial copy of a phase's
-- signal: one attempt per run and phase; failed if ANY copy failed; server-attributed only if
-- every failed copy says `theirs` with verified egress (`isServerAttributedSetupFailure` on
-- the unanimous failed copies); impact = DISTINCT trials with a failed copy; one latency sample
-- only when every copy reporting a finite non-negative duration reports the same one.
-- Phases other than connection and discovery are ignored.
-- Grain: one row per (run_id, phase). Reads: a_target_runs, core.setup_signals.
CREATE OR REPLACE TEMP TABLE a_setup AS
WITH copies AS (
    SELECT s.*, isfinite(s.duration_ms) AND s.duration_ms >= 0 AS timed
    FROM core.setup_signals s
    JOIN a_target_runs USING (run_id)
    WHERE list_position($phases, s.phase) IS NOT NULL
)
SELECT
    run_id,
    phase,
    CAST(list_position($phases, phase) AS INTEGER)                    AS phase_index,
    1                                                                 AS unique_attempts,
    CASE WHEN bool_or(outcome = 'failed') THEN 1 ELSE 0 END           AS failed_attempts,
    CASE WHEN bool_or(outcome = 'failed')
          AND bool_and(attribution IS NOT DISTINCT FROM 'theirs' AND egress_verified IS TRUE)
              FILTER (outcome = 'failed')
         THEN 1 ELSE 0 END                                            AS server_attributed_failures,
    count(DISTINCT trial_id) FILTER (outcome = 'failed')             AS impacted_trials,
    CASE WHEN min(duration_ms) FILTER (timed) = max(duration_ms) FILTER (timed)
         THEN min(duration_ms) FILTER (timed) END                     AS latency_ms
FROM copies
GROUP BY run_id, phase;
