-- Delete, re-derivation: the traces whose trials are replaced (every trace that lost spans).
-- Grain: one row per trace_id. Reads: st_traces.
SELECT trace_id, remaining FROM st_traces ORDER BY trace_id;
