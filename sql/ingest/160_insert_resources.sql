-- Grain: one row per staged resource. Reads: staged_resources.
INSERT INTO core.resources
SELECT resource_row + $resource_row, $source_id, record_index, resource_index, schema_url,
       dropped_attributes_count
FROM staged_resources;
