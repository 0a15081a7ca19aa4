-- Staged spans with store-wide row ids, pointing at the resource and scope rows kept for theirs
-- (sql/ingest/100–101). Grain: one row per decoded span, in span_row order.
-- Reads: staged_spans, resource_map, scope_map.
CREATE OR REPLACE TEMP TABLE new_spans AS
SELECT s.* REPLACE (
    s.span_row + $span_row AS span_row,
    sm.kept_row            AS scope_row,
    rm.kept_row            AS resource_row
)
FROM staged_spans s
JOIN scope_map sm ON sm.scope_row = s.scope_row + $scope_row
JOIN resource_map rm ON rm.resource_row = s.resource_row + $resource_row
ORDER BY s.span_row;
