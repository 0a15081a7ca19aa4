-- The ledger rows of the sources, written last, once the counts of all their batches are final.
-- Grain: one row per source. Reads: staged_sources (contract.tables.SOURCES).
INSERT INTO core.sources BY NAME
SELECT * FROM staged_sources ORDER BY source_id;
