-- The import sources with their sha256, by id: the sources that contributed spans to a set of
-- traces (the distinct source_id of the spans 010_trial_spans.sql read). Foreign traces
-- (TRACE-FORMAT §3.8) form one run per source, `src-` + 12 hex digits of its sha256.
-- Grain: one row per source_id. Reads: core.sources. Params: $source_ids (list of source ids).
SELECT source_id, sha256
FROM core.sources
WHERE source_id IN (SELECT unnest($source_ids))
ORDER BY source_id
