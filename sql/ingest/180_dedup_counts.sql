-- How many spans and attributes of this source were exact duplicates.
-- Grain: one row. Reads: dropped_spans, dropped_owners, new_attributes.
SELECT
    (SELECT count(*) FROM dropped_spans) AS spans_deduplicated,
    (SELECT count(*) FROM new_attributes(
        $resource_row, $scope_row, $span_row, $event_row, $link_row, $large_value_ref) a
     SEMI JOIN dropped_owners d ON d.owner_type = a.owner_type AND d.owner_row = a.owner_row)
                                         AS attributes_deduplicated;
