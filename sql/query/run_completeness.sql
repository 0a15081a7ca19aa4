-- How much of one run the store holds (TRACE-FORMAT §5.2 W_RUN_INCOMPLETE_IN_EXPORT), and
-- whether it is an eval run at all. Inputs: $run_id.
-- Grain: one row per run (none for an unknown run). Reads: main.runs.
SELECT run_id, eval_run, trials_in_store, trials_expected, trials_missing, trials_pending,
       trials_skipped, document_blocker
FROM main.runs
WHERE run_id = $run_id;
