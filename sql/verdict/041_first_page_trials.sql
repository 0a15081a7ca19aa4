-- The trials of the first pages (sql/verdict/040), in page order per run.
-- Grain: one row per trial on a first page. Reads: v_first_pages.
SELECT run_id, trial_id, iteration_number, case_id, case_key, case_title, status,
       trial_result, project_id
FROM v_first_pages
ORDER BY run_id, position;
