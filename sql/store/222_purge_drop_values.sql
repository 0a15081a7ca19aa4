-- Purge: every other gated value goes, row and all (and a `names` value that was no list).
-- Grain: deletes rows. Reads: st_gated.
DELETE FROM core.attributes a
USING st_gated g
WHERE g.owner_type = a.owner_type AND g.owner_row = a.owner_row AND g.ordinal = a.ordinal
  AND (g.action = 'drop' OR a.large_value_ref IS NOT NULL OR a.string_value IS NULL
       OR NOT json_valid(a.string_value) OR json_type(a.string_value) <> 'ARRAY');
