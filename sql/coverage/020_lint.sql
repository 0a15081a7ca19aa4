-- The coverage lint of the runs `coverage/010_links.sql` reads (the same $run_id / $suite_id
-- choice), by case, then rule and stage.
-- Grain: one row per (run_id, case_id, rule, stage). Reads: main.coverage_lint,
-- core.coverage_runs.
SELECT l.*
FROM main.coverage_lint l
WHERE l.run_id IN (
    SELECT run_id FROM core.coverage_runs
    WHERE CASE
        WHEN $run_id IS NOT NULL THEN run_id = $run_id
        WHEN $suite_id IS NOT NULL THEN suite_id = $suite_id AND latest
        ELSE latest
    END
)
ORDER BY l.suite_id NULLS LAST, l.run_id, l.case_id, l.rule, l.stage;
