-- Grain: one row per large value still referenced by a kept attribute of this batch.
-- Reads: staged_large_values, new_attributes, dropped_owners.
INSERT INTO core.large_values
SELECT large_value_ref + $large_value_ref, sha256, length, string_value, bytes_value
FROM staged_large_values
WHERE large_value_ref + $large_value_ref IN (
    SELECT a.large_value_ref FROM new_attributes(
        $resource_row, $scope_row, $span_row, $event_row, $link_row, $large_value_ref) a
    ANTI JOIN dropped_owners d ON d.owner_type = a.owner_type AND d.owner_row = a.owner_row
    WHERE a.large_value_ref IS NOT NULL);
