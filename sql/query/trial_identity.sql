-- One trial's identity and lifecycle. Grain: one row per (trial_id, trace_id).
-- Reads: core.trials.
SELECT trial_id, lower(hex(trace_id)) AS trace_id, run_id, suite_id, case_id, case_title,
       intent, provider, model, host_key, status, repetition, is_negative, duration_ms,
       integrity_codes, contract
FROM core.trials
WHERE trial_id = $trial_id;
