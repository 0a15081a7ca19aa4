-- Undoing an unfinished import: its unknown fields. Grain: deletes rows.
-- Reads: core.unknown_fields.
DELETE FROM core.unknown_fields WHERE source_id >= $source_id;
