-- Every run with trials, in the order write_decision_summaries builds them in batches.
-- Grain: one row per run_id. Reads: core.trials.
SELECT DISTINCT run_id FROM core.trials ORDER BY run_id;
