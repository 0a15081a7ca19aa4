-- The evidence stamps of the touched traces, when this derivation rebuilds them from their
-- evidence at every analyzer ($replace_all_versions); re-deriving one analyzer's rows leaves
-- the others as old as the stamp says. Grain: deletes rows of core.derived_evidence.
-- Reads: touched_traces.
DELETE FROM core.derived_evidence
WHERE $replace_all_versions AND trace_id IN (SELECT trace_id FROM touched_traces);
