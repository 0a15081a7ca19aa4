-- Undoing an unfinished import: its quarantined items. Grain: deletes rows.
-- Reads: core.quarantine.
DELETE FROM core.quarantine WHERE source_id = $source_id;
