-- What awaits derivation, one group per analyzer version, oldest source first (the order the
-- imports that recorded them would have derived them in).
-- Grain: one row per analyzer_version. Reads: core.pending_derivations.
SELECT
    analyzer_version,
    list(DISTINCT source_id ORDER BY source_id) AS source_ids,
    list(DISTINCT trace_id ORDER BY trace_id) AS trace_ids
FROM core.pending_derivations
GROUP BY analyzer_version
ORDER BY min(source_id);
