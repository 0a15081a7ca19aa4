-- Grain: one row per (exported run, link). Reads: main.suite_coverage, export_runs.
SELECT * FROM main.suite_coverage WHERE run_id IN (SELECT run_id FROM export_runs)
