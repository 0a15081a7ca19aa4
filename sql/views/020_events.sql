-- Public view of span events with their span's hex ids.
-- Grain: one row per event. Reads: core.events, core.spans.
CREATE OR REPLACE VIEW main.events AS
SELECT
    e.event_row,
    e.span_row,
    lower(hex(s.trace_id)) AS trace_id,
    lower(hex(s.span_id))  AS span_id,
    e.ordinal,
    e.name,
    e.time_unix_nano,
    e.time,
    e.dropped_attributes_count
FROM core.events e
JOIN core.spans s USING (span_row);
