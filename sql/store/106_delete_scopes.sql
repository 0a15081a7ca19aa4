-- Delete: the scopes no remaining span points at. Grain: deletes rows. Reads: st_owners.
DELETE FROM core.scopes
WHERE scope_row IN (SELECT owner_row FROM st_owners WHERE owner_type = 'scope');
