-- Grain: one row per staged scope not already stored (sql/ingest/101), under the resource row
-- kept for its resource. Reads: staged_scopes, scope_map, resource_map.
INSERT INTO core.scopes
SELECT sc.scope_row + $scope_row, rm.kept_row, sc.name, sc.version, sc.schema_url,
       sc.dropped_attributes_count, sc.content_hash
FROM staged_scopes sc
JOIN resource_map rm ON rm.resource_row = sc.resource_row + $resource_row
SEMI JOIN scope_map sm ON sm.scope_row = sc.scope_row + $scope_row AND sm.kept_row = sm.scope_row;
