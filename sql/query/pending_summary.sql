-- How much awaits derivation: sources and traces imported whose trials are not derived yet.
-- Grain: one row. Reads: core.pending_derivations.
SELECT count(DISTINCT source_id) AS sources, count(DISTINCT trace_id) AS traces
FROM core.pending_derivations;
