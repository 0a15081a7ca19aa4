-- Purge: a JSON list of tool calls keeps each call's tool name only (`toolName`, else `name`),
-- as 200 wrote it; a list with nothing more is left as it is, a value that is no list is
-- dropped by 222. Grain: updates rows. Reads: st_gated.
UPDATE core.attributes a
SET string_value = g.names,
    json_value = NULL,
    large_value_ref = NULL
FROM st_gated g
WHERE g.action = 'cut'
  AND g.owner_type = a.owner_type AND g.owner_row = a.owner_row AND g.ordinal = a.ordinal;
