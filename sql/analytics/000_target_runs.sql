-- The runs to (re)materialize: every run in the store ($all_runs) — including runs that were
-- materialized but have no trials any more, so their rows go — or exactly the listed ones.
-- A run without trials only has its rows deleted.
-- Grain: one row per run_id. Reads: core.trials, core.run_summary, $run_ids.
CREATE OR REPLACE TEMP TABLE a_target_runs AS
SELECT DISTINCT run_id FROM core.trials WHERE $all_runs
UNION
SELECT run_id FROM core.run_summary WHERE $all_runs
UNION
SELECT DISTINCT unnest(CAST($run_ids AS VARCHAR[])) AS run_id;
