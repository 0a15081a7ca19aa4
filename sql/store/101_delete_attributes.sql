-- Delete: the attributes of every departing owner. Grain: deletes rows.
-- Reads: st_owners, core.attributes.
DELETE FROM core.attributes a
USING st_owners o
WHERE o.owner_type = a.owner_type AND o.owner_row = a.owner_row;
