-- The spans of a set of traces, with the columns the evidence adapter reads
-- (valuechain.evidence.frames: ids binary, raw uint64 times, role and OpenInference kind).
-- Spans of one trace may come from several sources and imports: all of them are read.
-- Grain: one row per stored span of the requested traces, in span_row order.
-- Reads: core.spans. Params: $trace_ids (list of lower-case hex trace ids).
SELECT
    s.span_row,
    s.trace_id,
    s.span_id,
    s.parent_span_id,
    s.resource_row,
    s.source_id,
    s.name,
    s.kind,
    s.start_time_unix_nano,
    s.end_time_unix_nano,
    s.status_code,
    s.mcp_app_role,
    s.oi_span_kind,
    s.dropped_attributes_count,
    s.dup_group
FROM core.spans s
WHERE s.trace_id IN (SELECT unhex(t) FROM (SELECT unnest($trace_ids) AS t))
ORDER BY s.span_row
