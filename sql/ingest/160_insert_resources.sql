-- Grain: one row per staged resource not already stored (sql/ingest/100).
-- Reads: staged_resources, resource_map.
INSERT INTO core.resources
SELECT r.resource_row + $resource_row, r.source_id, r.record_index, r.resource_index,
       r.schema_url, r.dropped_attributes_count, r.content_hash
FROM staged_resources r
SEMI JOIN resource_map m
    ON m.resource_row = r.resource_row + $resource_row AND m.kept_row = m.resource_row;
