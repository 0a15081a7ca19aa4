-- Delete: the large values no remaining attribute points at. Grain: deletes rows.
-- Reads: st_large_values.
DELETE FROM core.large_values WHERE large_value_ref IN (SELECT large_value_ref FROM st_large_values);
