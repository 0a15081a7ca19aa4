-- Purge: a JSON list of tool calls keeps each call's tool name only (`toolName`, else `name`);
-- a value that is not such a list is dropped by 222. Grain: updates rows. Reads: st_gated.
UPDATE core.attributes a
SET string_value = to_json(list_transform(
        CAST(a.string_value AS JSON[]),
        lambda x: json_object('toolName', coalesce(x->>'toolName', x->>'name'))
    ))::VARCHAR,
    json_value = NULL,
    large_value_ref = NULL
FROM st_gated g
WHERE g.action = 'names'
  AND g.owner_type = a.owner_type AND g.owner_row = a.owner_row AND g.ordinal = a.ordinal
  AND a.large_value_ref IS NULL
  AND json_valid(a.string_value) AND json_type(a.string_value) = 'ARRAY';
