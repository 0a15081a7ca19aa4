-- Public view of spans: ids as lower-case hex, kind/status names, tree flags computed over the
-- whole store (spans of one trace may arrive in different files and imports).
-- Grain: one row per kept span. Reads: core.spans.
CREATE OR REPLACE VIEW main.spans AS
SELECT
    s.span_row,
    lower(hex(s.trace_id))                       AS trace_id,
    lower(hex(s.span_id))                        AS span_id,
    lower(hex(s.parent_span_id))                 AS parent_span_id,
    s.name,
    s.kind,
    CASE s.kind WHEN 0 THEN 'unspecified' WHEN 1 THEN 'internal' WHEN 2 THEN 'server'
                WHEN 3 THEN 'client' WHEN 4 THEN 'producer' WHEN 5 THEN 'consumer' END
                                                 AS kind_name,
    s.start_time_unix_nano,
    s.end_time_unix_nano,
    s.start_time,
    s.end_time,
    s.duration_ns,
    s.status_code,
    CASE s.status_code WHEN 0 THEN 'unset' WHEN 1 THEN 'ok' WHEN 2 THEN 'error' END
                                                 AS status_name,
    s.status_message,
    s.trace_state,
    s.flags,
    s.dropped_attributes_count,
    s.dropped_events_count,
    s.dropped_links_count,
    s.oi_span_kind,
    s.mcp_app_role,
    s.parent_span_id IS NULL                     AS is_root,
    s.parent_span_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM core.spans p
        WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id
    )                                            AS is_orphan,
    s.dup_group,
    s.source_id,
    s.record_index,
    s.json_path,
    s.resource_row,
    s.scope_row
FROM core.spans s;
