-- Undoing an unfinished import: its issues. Grain: deletes rows. Reads: core.issues.
DELETE FROM core.issues WHERE source_id >= $source_id;
