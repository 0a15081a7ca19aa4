-- Undoing an unfinished import: its quarantined items (of every source from its first on: a
-- group of small sources is several). Grain: deletes rows.
-- Reads: core.quarantine.
DELETE FROM core.quarantine WHERE source_id >= $source_id;
