-- The span and resource attribute rows of one run (as sql/evidence/020 hands them to the
-- derive step) into a worker's in-memory store of that run alone, for the verdict step.
-- Grain: one row per (owner_type, owner_row, ordinal). Reads: run_attributes (Arrow).
INSERT INTO core.attributes BY NAME
SELECT
    owner_type, owner_row, ordinal, key, coalesce(value_type, 'empty') AS value_type,
    string_value, int_value, double_value, bool_value, json_value
FROM run_attributes;
