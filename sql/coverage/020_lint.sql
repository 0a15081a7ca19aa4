-- The coverage lint of the runs `query/coverage.sql` reads (the same $run_id / $suite_id
-- choice), by case, then rule and stage.
-- Grain: one row per (run_id, case_id, rule, stage). Reads: main.coverage_lint,
-- main.suite_coverage.
SELECT l.*
FROM main.coverage_lint l
WHERE l.run_id IN (
    SELECT run_id FROM main.suite_coverage
    WHERE CASE
        WHEN $run_id IS NOT NULL THEN run_id = $run_id
        WHEN $suite_id IS NOT NULL THEN suite_id = $suite_id AND latest
        ELSE latest
    END
)
ORDER BY l.suite_id NULLS LAST, l.run_id, l.case_id, l.rule, l.stage;
