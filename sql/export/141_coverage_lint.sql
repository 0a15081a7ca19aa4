-- Grain: one row per (exported run, case, rule, link). Reads: main.coverage_lint, export_runs.
SELECT * FROM main.coverage_lint WHERE run_id IN (SELECT run_id FROM export_runs)
