-- The issues of imported sources, as the `issues` command lists them; a NULL filter keeps
-- every value. Inputs: $code, $severity, $source_ids (the sources `--source` matched), each
-- NULL or a value.
-- Grain: one row per issue. Reads: main.issues.
SELECT source, severity, code, record_index, line, byte_offset, json_path, message,
       value_excerpt, hint, occurrences
FROM main.issues
WHERE ($code IS NULL OR code = $code)
  AND ($severity IS NULL OR severity = $severity)
  AND ($source_ids IS NULL OR list_contains($source_ids::INTEGER[], source_id))
ORDER BY source_id, record_index NULLS FIRST, line NULLS FIRST;
