-- The import sources that contributed spans to a set of traces, with their sha256: foreign
-- traces (TRACE-FORMAT §3.8) form one run per source, `src-` + 12 hex digits of it.
-- Grain: one row per source_id. Reads: core.spans, core.sources.
-- Params: $trace_ids (list of lower-case hex trace ids).
SELECT DISTINCT src.source_id, src.sha256
FROM core.sources src
JOIN core.spans s ON s.source_id = src.source_id
WHERE s.trace_id IN (SELECT unhex(t) FROM (SELECT unnest($trace_ids) AS t))
ORDER BY src.source_id
