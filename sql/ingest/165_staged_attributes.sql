-- Staged attributes with store-wide owner rows. Grain: one row per staged attribute.
-- Reads: staged_attributes.
CREATE OR REPLACE TEMP TABLE new_attributes AS
SELECT * REPLACE (
    owner_row + CASE owner_type
        WHEN 'resource' THEN $resource_row WHEN 'scope' THEN $scope_row
        WHEN 'span' THEN $span_row WHEN 'event' THEN $event_row WHEN 'link' THEN $link_row
    END AS owner_row,
    large_value_ref + $large_value_ref AS large_value_ref
)
FROM staged_attributes;
