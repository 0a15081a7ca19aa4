-- Undoing an unfinished import: its scopes. Grain: deletes rows. Reads: core.scopes.
DELETE FROM core.scopes WHERE scope_row >= $scope_row;
