-- The spans of one run, as the scale-out path assembled them (pipeline/scale/rows.py), into
-- a worker's in-memory store of that run alone: the verdict step reads the trial roots' keys
-- and tool spans from core.spans (sql/verdict/011, 012, 043). Columns the import would fill
-- that nothing downstream reads get neutral values. Grain: one row per kept span.
-- Reads: run_spans (Arrow: the assembled span rows).
INSERT INTO core.spans BY NAME
SELECT
    span_row, 0 AS scope_row, resource_row, source_id, 0 AS record_index, trace_id, span_id,
    parent_span_id, name, kind, start_time_unix_nano, end_time_unix_nano, status_code,
    coalesce(dropped_attributes_count, 0) AS dropped_attributes_count,
    0 AS dropped_events_count, 0 AS dropped_links_count, oi_span_kind, mcp_app_role,
    ''::BLOB AS content_hash, '' AS json_path, dup_group
FROM run_spans;
