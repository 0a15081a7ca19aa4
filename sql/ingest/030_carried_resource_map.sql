-- The resource row a source's next group may refer to without staging it: a single document cut
-- inside an item (ingest/bytes/items.py) goes on in the item and scope the group before began,
-- and its spans point at their rows. Empty when a source begins; sql/ingest/190–191 carries the
-- last row of each group's map. Grain: at most one row: a store-wide row and the row kept for it.
CREATE OR REPLACE TEMP TABLE carried_resource_map (resource_row BIGINT, kept_row BIGINT);
