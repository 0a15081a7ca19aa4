-- Grain: one row per staged scope. Reads: staged_scopes.
INSERT INTO core.scopes
SELECT scope_row + $scope_row, resource_row + $resource_row, name, version, schema_url,
       dropped_attributes_count
FROM staged_scopes;
