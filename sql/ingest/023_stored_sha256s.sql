-- Which of a group of small files' hashes the ledger holds already (each is `unchanged`):
-- one query for the group instead of one a file. Grain: one row per stored hash.
-- Reads: core.sources, $hashes.
SELECT sha256
FROM core.sources
WHERE list_contains(CAST($hashes AS VARCHAR[]), sha256);
