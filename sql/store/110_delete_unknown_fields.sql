-- Delete: the unknown fields of emptied sources. Grain: deletes rows. Reads: st_sources.
DELETE FROM core.unknown_fields
WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied);
