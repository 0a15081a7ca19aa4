-- The last trial of every page another page follows (CONTRACT §6.7): what its run's
-- `nextCursor` names (the cursor itself is encoded by the caller).
-- Grain: one row per run_id whose page is not its last. Reads: v_diagnostics.
SELECT DISTINCT run_id, last_number, last_trial_id
FROM v_diagnostics
WHERE more;
