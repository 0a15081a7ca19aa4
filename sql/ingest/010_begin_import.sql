-- Mark a source's import as in progress, with the row ids it starts from: its batches commit
-- one by one (bounded memory), so until the ledger row is written a failure or a crash is
-- undone by deleting every row from these offsets on (sql/ingest/5xx). Grain: one row.
-- Reads: nothing.
INSERT INTO core.meta VALUES ('import_in_progress', $marker);
