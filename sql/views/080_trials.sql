-- Public view of trials: identity, lifecycle, run identity, tokens and timing, with hex ids.
-- Grain: one row per (trial_id, trace_id). Reads: core.trials.
CREATE OR REPLACE VIEW main.trials AS
SELECT * REPLACE (lower(hex(trace_id)) AS trace_id)
FROM core.trials;
