-- Purge: every other gated value goes, row and all (and a tool-call value that was no list).
-- Grain: deletes rows. Reads: st_gated.
DELETE FROM core.attributes a
USING st_gated g
WHERE g.action = 'drop'
  AND g.owner_type = a.owner_type AND g.owner_row = a.owner_row AND g.ordinal = a.ordinal;
