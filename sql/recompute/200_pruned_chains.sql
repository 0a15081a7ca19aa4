-- Prune, step 1: the chains to drop (core.prunable_chains, sql/views/131), set aside before any
-- row goes, so the three tables lose exactly the same chains.
-- Grain: one row per (trial_id, run_id, analyzer_version). Reads: core.prunable_chains.
CREATE OR REPLACE TEMP TABLE pruned_chains AS
SELECT * FROM core.prunable_chains($target, $all_runs, CAST($run_ids AS VARCHAR[]));
