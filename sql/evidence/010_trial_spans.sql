-- The spans of a set of traces, with the columns the evidence adapter reads
-- (valuechain.evidence.frames: ids binary, raw uint64 times, role and OpenInference kind).
-- Spans of one trace may come from several sources and imports: all of them are read.
-- Grain: one row per stored span of the requested traces, in span_row order.
-- Reads: core.spans. Params: $trace_ids (list of lower-case hex trace ids); $first_row,
-- $last_row: the span rows they lie within (`trace_runs.sql`), so the scan skips the row groups
-- of other traces — trace ids are random, a filter on them alone reads every stored id.
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
WHERE s.span_row BETWEEN $first_row AND $last_row
    AND s.trace_id IN (SELECT unhex(t) FROM (SELECT unnest($trace_ids) AS t))
ORDER BY s.span_row
