-- What --prune would remove (core.prunable_chains, sql/views/131), counted per run and version.
-- Grain: one row per (run_id, analyzer_version). Reads: core.prunable_chains.
SELECT run_id, analyzer_version, count(*) AS trials
FROM core.prunable_chains($target, $all_runs, CAST($run_ids AS VARCHAR[]))
GROUP BY ALL
ORDER BY run_id, analyzer_version;
