-- Delete: what emptied sources quarantined. Grain: deletes rows. Reads: st_sources.
DELETE FROM core.quarantine WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied);
