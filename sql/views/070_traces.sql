-- One row per trace in the store, over every source that contributed spans to it.
-- Grain: one row per trace_id. Reads: core.spans.
CREATE OR REPLACE VIEW main.traces AS
SELECT
    lower(hex(trace_id))                     AS trace_id,
    count(*)                                 AS span_count,
    count(*) FILTER (parent_span_id IS NULL) AS root_count,
    count(DISTINCT source_id)                AS source_count,
    min(start_time)                          AS start_time,
    max(end_time)                            AS end_time
FROM core.spans
GROUP BY trace_id;
