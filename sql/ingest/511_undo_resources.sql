-- Undoing an unfinished import: its resources. Grain: deletes rows. Reads: core.resources.
DELETE FROM core.resources WHERE resource_row >= $resource_row;
