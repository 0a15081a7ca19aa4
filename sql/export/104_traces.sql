-- The traces of the exported runs' traces, each with the suite and run of its trace's trial
-- (none: the trace has no trial, or the row no trace). Grain: one row per trace.
-- Reads: main.traces, export_trace_runs, export_runs. Params: $all_runs.
SELECT x.*, r.suite_id, r.run_id
FROM main.traces x
LEFT JOIN export_trace_runs r USING (trace_id)
WHERE $all_runs OR r.run_id IN (SELECT run_id FROM export_runs)
