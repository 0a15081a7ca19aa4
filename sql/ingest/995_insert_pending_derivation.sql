-- The source's traces await their derivation (core.pending_derivations), recorded in the same
-- transaction as its ledger row so that no committed source can go underived unnoticed.
-- Grain: one row per trace of the source. Reads: staged_pending_traces (trace_id).
INSERT INTO core.pending_derivations
SELECT $source_id, trace_id, $analyzer_version FROM staged_pending_traces;
