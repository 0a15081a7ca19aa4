-- The folders `--allow-files` opens for reading (none by default); DuckDB adds the store's own
-- files and .tmp folder itself. Grain: one setting. Reads: nothing.
SET allowed_directories = $allowed_directories;
