-- Grain: one row per attribute of a kept owner. Reads: new_attributes, dropped_owners.
INSERT INTO core.attributes
SELECT a.*
FROM new_attributes(
        $resource_row, $scope_row, $span_row, $event_row, $link_row, $large_value_ref) a
ANTI JOIN dropped_owners d ON d.owner_type = a.owner_type AND d.owner_row = a.owner_row;
