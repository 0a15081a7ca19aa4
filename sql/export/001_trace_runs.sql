-- The run (and suite) whose folder a trace's span-level rows go to: the run of its trial
-- (the first by run id when a trace holds trials of several runs); none for a trace without
-- a trial. Grain: one row per trace_id with a trial. Reads: main.trials.
CREATE OR REPLACE TEMP TABLE export_trace_runs AS
SELECT trace_id, min(run_id) AS run_id, arg_min(suite_id, run_id) AS suite_id
FROM main.trials
GROUP BY trace_id;
