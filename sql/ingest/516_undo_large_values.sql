-- Undoing an unfinished import: its large values. Grain: deletes rows. Reads: core.large_values.
DELETE FROM core.large_values WHERE large_value_ref >= $large_value_ref;
