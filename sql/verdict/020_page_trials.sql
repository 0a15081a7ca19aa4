-- One later diagnostics page of one run (CONTRACT §6.7): its trials in (iteration_number,
-- trial_id) order after the cursor's position ($after_number, $after_id), one more row than
-- the page holds so the reader knows whether another page exists. Kept in the same temporary
-- table as the first pages (sql/verdict/040), so 041–044 read either.
-- Grain: one row per trial of the page. Reads: core.trials.
CREATE OR REPLACE TEMP TABLE v_pages AS
SELECT run_id, trial_id, trace_id, root_span_id,
       coalesce(iteration_number, -1) AS iteration_number, case_id, case_key, case_title,
       status, trial_result, project_id,
       row_number() OVER (ORDER BY coalesce(iteration_number, -1), trial_id) AS position
FROM core.trials
WHERE run_id = $run_id
  AND (coalesce(iteration_number, -1), trial_id) > ($after_number, $after_id)
ORDER BY coalesce(iteration_number, -1), trial_id
LIMIT $limit + 1;
