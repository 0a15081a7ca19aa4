-- Public view of attributes at every level, with the hex ids of the span they belong to
-- (null for resource and scope attributes) and large values inlined.
-- Grain: one row per (owner_type, owner_row, ordinal). Reads: core.attributes, core.spans,
-- core.events, core.links, core.large_values.
CREATE OR REPLACE VIEW main.attributes AS
SELECT
    a.owner_type,
    a.owner_row,
    lower(hex(s.trace_id))                      AS trace_id,
    lower(hex(s.span_id))                       AS span_id,
    a.ordinal,
    a.key,
    a.value_type,
    coalesce(a.string_value, lv.string_value)   AS string_value,
    a.int_value,
    a.double_value,
    a.bool_value,
    lower(hex(coalesce(a.bytes_value, lv.bytes_value))) AS bytes_value,
    a.json_value,
    a.large_value_ref IS NOT NULL               AS is_large_value
FROM core.attributes a
LEFT JOIN core.events e ON a.owner_type = 'event' AND e.event_row = a.owner_row
LEFT JOIN core.links l ON a.owner_type = 'link' AND l.link_row = a.owner_row
LEFT JOIN core.spans s ON s.span_row = CASE a.owner_type
    WHEN 'span' THEN a.owner_row WHEN 'event' THEN e.span_row WHEN 'link' THEN l.span_row END
LEFT JOIN core.large_values lv ON lv.large_value_ref = a.large_value_ref;
