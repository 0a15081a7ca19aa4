-- One page of a run's trials for the diagnostics (CONTRACT §6.7), in (iteration_number,
-- trial_id) order, after the cursor's position ($after_number, $after_id; $first = no
-- cursor), one more row than the page holds so the reader knows whether another page exists.
-- Grain: one row per trial. Reads: core.trials.
SELECT trial_id, lower(hex(trace_id)) AS trace_id, root_span_id, coalesce(iteration_number, -1) AS iteration_number,
       case_id, case_key, case_title, status, trial_result, project_id
FROM core.trials
WHERE run_id = $run_id
  AND ($first OR (coalesce(iteration_number, -1), trial_id) > ($after_number, $after_id))
ORDER BY coalesce(iteration_number, -1), trial_id
LIMIT $limit + 1;
