-- Grain: one row per large value still referenced by a kept attribute.
-- Reads: staged_large_values, core.attributes.
INSERT INTO core.large_values
SELECT large_value_ref + $large_value_ref, sha256, length, string_value, bytes_value
FROM staged_large_values
WHERE large_value_ref + $large_value_ref IN (
    SELECT large_value_ref FROM core.attributes WHERE large_value_ref IS NOT NULL);
