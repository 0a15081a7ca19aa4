-- Public view of span links; target_present says whether the linked span is in the store.
-- Grain: one row per link. Reads: core.links, core.spans.
CREATE OR REPLACE VIEW main.links AS
SELECT
    l.link_row,
    l.span_row,
    lower(hex(s.trace_id)) AS trace_id,
    lower(hex(s.span_id))  AS span_id,
    l.ordinal,
    lower(hex(l.trace_id)) AS linked_trace_id,
    lower(hex(l.span_id))  AS linked_span_id,
    l.trace_state,
    l.flags,
    l.dropped_attributes_count,
    EXISTS (
        SELECT 1 FROM core.spans t WHERE t.trace_id = l.trace_id AND t.span_id = l.span_id
    )                      AS target_present
FROM core.links l
JOIN core.spans s USING (span_row);
