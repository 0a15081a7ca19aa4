-- Every issue of every accepted source, with the source's path.
-- Grain: one row per issue. Reads: core.issues, core.sources.
CREATE OR REPLACE VIEW main.issues AS
SELECT
    src.path AS source,
    i.source_id,
    i.severity,
    i.code,
    i.record_index,
    i.line,
    i.byte_offset,
    i.json_path,
    i.span_row,
    i.message,
    i.value_excerpt,
    i.hint,
    i.occurrences
FROM core.issues i
JOIN core.sources src USING (source_id);
