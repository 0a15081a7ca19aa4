-- Store info: the runs, with trials and the traces they span. Grain: one row per run_id.
-- Reads: core.trials.
SELECT run_id, any_value(suite_id) AS suite_id, count(*) AS trials, count(DISTINCT trace_id) AS traces
FROM core.trials GROUP BY run_id ORDER BY run_id LIMIT $limit;
