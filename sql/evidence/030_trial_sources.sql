-- The import sources that contributed spans to a set of traces, with their sha256: foreign
-- traces (TRACE-FORMAT §3.8) form one run per source, `src-` + 12 hex digits of it.
-- Grain: one row per source_id. Reads: core.spans, core.sources.
-- Params: $trace_ids (list of lower-case hex trace ids); $first_row, $last_row: the span rows
-- they lie within (as in 010_trial_spans.sql).
SELECT DISTINCT src.source_id, src.sha256
FROM core.sources src
JOIN core.spans s ON s.source_id = src.source_id
WHERE s.span_row BETWEEN $first_row AND $last_row
    AND s.trace_id IN (SELECT unhex(t) FROM (SELECT unnest($trace_ids) AS t))
ORDER BY src.source_id
