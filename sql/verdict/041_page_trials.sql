-- The trials of the pages in v_pages (sql/verdict/020 or 040), in page order per run.
-- Grain: one row per trial on a page. Reads: v_pages.
SELECT run_id, trial_id, iteration_number, case_id, case_key, case_title, status,
       trial_result, project_id
FROM v_pages
ORDER BY run_id, position;
