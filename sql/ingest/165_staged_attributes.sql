-- Staged attributes with store-wide owner rows, as a table macro over the batch's Arrow table
-- (a temporary table would copy every attribute once more). Called with the batch's offsets:
-- new_attributes($resource_row, $scope_row, $span_row, $event_row, $link_row, $large_value_ref).
-- Grain: one row per staged attribute. Reads: staged_attributes.
CREATE OR REPLACE TEMP MACRO new_attributes(
    resource_offset, scope_offset, span_offset, event_offset, link_offset, large_value_offset
) AS TABLE
SELECT * REPLACE (
    owner_row + CASE owner_type
        WHEN 'resource' THEN resource_offset WHEN 'scope' THEN scope_offset
        WHEN 'span' THEN span_offset WHEN 'event' THEN event_offset WHEN 'link' THEN link_offset
    END AS owner_row,
    large_value_ref + large_value_offset AS large_value_ref
)
FROM staged_attributes;
