-- Delete: the resources no remaining span or scope points at. Grain: deletes rows.
-- Reads: st_owners.
DELETE FROM core.resources
WHERE resource_row IN (SELECT owner_row FROM st_owners WHERE owner_type = 'resource');
