-- Every accepted source, to resolve what `issues --source` names (a path, a basename, a
-- sha256 prefix). Inputs: none.
-- Grain: one row per source. Reads: main.imports.
SELECT source_id, path, sha256
FROM main.imports
ORDER BY source_id;
