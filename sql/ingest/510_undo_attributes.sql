-- Undoing an unfinished import: the attributes of its owners. Grain: deletes rows.
-- Reads: core.attributes.
DELETE FROM core.attributes
WHERE (owner_type = 'resource' AND owner_row >= $resource_row)
   OR (owner_type = 'scope' AND owner_row >= $scope_row)
   OR (owner_type = 'span' AND owner_row >= $span_row)
   OR (owner_type = 'event' AND owner_row >= $event_row)
   OR (owner_type = 'link' AND owner_row >= $link_row);
