-- The traces recompute would re-derive at $target (core.stale_traces, sql/views/130).
-- Grain: one row per stale trace_id. Reads: core.stale_traces.
SELECT trace_id, evidence_changed, trials_behind, run_ids
FROM core.stale_traces($target)
ORDER BY trace_id;
