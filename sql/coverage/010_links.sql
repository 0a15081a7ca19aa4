-- The coverage rows asked for (issue 19): one run's ($run_id), else the latest run of one suite
-- ($suite_id), else the latest run of every suite; six links per run in chain order.
-- Grain: one row per (run_id, stage_index). Reads: main.suite_coverage.
SELECT * EXCLUDE (latest)
FROM main.suite_coverage
WHERE CASE
    WHEN $run_id IS NOT NULL THEN run_id = $run_id
    WHEN $suite_id IS NOT NULL THEN suite_id = $suite_id AND latest
    ELSE latest
END
ORDER BY suite_id NULLS LAST, run_id, stage_index;
