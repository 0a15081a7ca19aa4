-- Trial-level issues of the touched traces are rebuilt with them.
-- Grain: deletes rows of core.trial_issues. Reads: touched_traces, staged_trials.
DELETE FROM core.trial_issues
WHERE trace_id IN (SELECT lower(hex(trace_id)) FROM touched_traces)
   OR trace_id IS NULL AND run_id IN (SELECT run_id FROM staged_trials);
