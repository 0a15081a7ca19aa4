-- The first diagnostics page of every target run at once (CONTRACT §6.7): each run's first
-- $limit + 1 trials in (iteration_number, trial_id) order — the extra row says whether a
-- second page exists. Kept as the temporary table v_pages that 041–044 read.
-- Grain: one row per trial on a first page. Reads: core.trials. Params: $all_runs, $run_ids.
CREATE OR REPLACE TEMP TABLE v_pages AS
SELECT * FROM (
    SELECT run_id, trial_id, trace_id, root_span_id,
           coalesce(iteration_number, -1) AS iteration_number, case_id, case_key, case_title,
           status, trial_result, project_id,
           row_number() OVER (PARTITION BY run_id ORDER BY coalesce(iteration_number, -1), trial_id)
               AS position
    FROM core.trials
    WHERE $all_runs OR run_id IN (SELECT unnest(CAST($run_ids AS VARCHAR[])))
)
WHERE position <= $limit + 1;
