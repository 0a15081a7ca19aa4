-- The import is over (finished or undone): clear its in-progress mark. Grain: deletes one row.
-- Reads: core.meta.
DELETE FROM core.meta WHERE key = 'import_in_progress';
