-- Grain: deletes the core.trials rows of the touched traces. Reads: touched_traces.
DELETE FROM core.trials WHERE trace_id IN (SELECT trace_id FROM touched_traces);
