-- Delete, step 4: the runs whose trials the deletion touches (their documents are rebuilt; a
-- run left without trials loses them). Grain: one row per run_id. Reads: st_traces, core.trials.
CREATE OR REPLACE TEMP TABLE st_runs AS
SELECT DISTINCT run_id FROM core.trials WHERE trace_id IN (SELECT trace_id FROM st_traces)
UNION
SELECT $run_id WHERE $run_id IS NOT NULL AND $run_id IN (SELECT run_id FROM core.trials);
