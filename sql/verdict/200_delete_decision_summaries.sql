-- Replace, step 1: drop the target runs' decision summaries (every chain source and version).
-- Grain: none. Reads: $run_ids, $all_runs.
DELETE FROM core.decision_summaries
WHERE $all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])));
