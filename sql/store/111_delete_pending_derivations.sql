-- Delete: pending derivations of emptied sources and of departing traces (the traces that
-- remain are derived by the deletion itself). Grain: deletes rows. Reads: st_sources, st_traces.
DELETE FROM core.pending_derivations
WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied)
   OR trace_id IN (SELECT trace_id FROM st_traces);
