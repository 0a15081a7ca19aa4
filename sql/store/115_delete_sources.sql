-- Delete, last: the ledger rows of emptied sources (their bytes can be imported again).
-- Grain: deletes rows. Reads: st_sources.
DELETE FROM core.sources WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied);
