-- The next free store-wide row id of every table a source writes; staged (batch-local) rows
-- are shifted by these. Grain: one row. Reads: core.*.
SELECT
    (SELECT coalesce(max(source_id) + 1, 1) FROM core.sources)             AS source_id,
    (SELECT coalesce(max(import_id), 0) FROM core.sources)                 AS last_import_id,
    (SELECT coalesce(max(resource_row) + 1, 0) FROM core.resources)        AS resource_row,
    (SELECT coalesce(max(scope_row) + 1, 0) FROM core.scopes)              AS scope_row,
    (SELECT coalesce(max(span_row) + 1, 0) FROM core.spans)                AS span_row,
    (SELECT coalesce(max(event_row) + 1, 0) FROM core.events)              AS event_row,
    (SELECT coalesce(max(link_row) + 1, 0) FROM core.links)                AS link_row,
    (SELECT coalesce(max(large_value_ref) + 1, 0) FROM core.large_values)  AS large_value_ref;
