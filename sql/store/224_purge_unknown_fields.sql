-- Purge: unknown fields keep their path, not their raw JSON. Grain: updates rows.
-- Reads: core.unknown_fields.
UPDATE core.unknown_fields SET raw_json = 'null' WHERE raw_json <> 'null';
