-- Staged spans with store-wide row ids. Grain: one row per decoded span. Reads: staged_spans.
CREATE OR REPLACE TEMP TABLE new_spans AS
SELECT * REPLACE (
    span_row + $span_row         AS span_row,
    scope_row + $scope_row       AS scope_row,
    resource_row + $resource_row AS resource_row
)
FROM staged_spans;
