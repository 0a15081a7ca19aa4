-- The sources' traces await their derivation (core.pending_derivations), recorded in the same
-- transaction as their ledger rows so that no committed source can go underived unnoticed.
-- Grain: one row per (source, trace). Reads: staged_pending_traces (source_id, trace_id).
INSERT INTO core.pending_derivations
SELECT source_id, trace_id, $analyzer_version FROM staged_pending_traces;
