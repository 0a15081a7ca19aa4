-- How many spans and attributes of each source of the batch were exact duplicates.
-- Grain: one row per source with a duplicate. Reads: dropped_spans, dropped_owners,
-- new_attributes.
SELECT source_id, sum(spans) AS spans_deduplicated, sum(attributes) AS attributes_deduplicated
FROM (
    SELECT source_id, count(*) AS spans, 0 AS attributes FROM dropped_spans GROUP BY source_id
    UNION ALL
    SELECT d.source_id, 0, count(*)
    FROM new_attributes(
        $resource_row, $scope_row, $span_row, $event_row, $link_row, $large_value_ref) a
    JOIN dropped_owners d ON d.owner_type = a.owner_type AND d.owner_row = a.owner_row
    GROUP BY d.source_id
)
GROUP BY source_id;
