-- Purge: the large values of gated attributes. Grain: deletes rows. Reads: st_gated.
DELETE FROM core.large_values
WHERE large_value_ref IN (SELECT large_value_ref FROM st_gated WHERE large_value_ref IS NOT NULL);
