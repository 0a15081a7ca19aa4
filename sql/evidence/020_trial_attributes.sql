-- The attribute rows of the spans of a set of traces and of those spans' resources, long
-- (TRACE-FORMAT §6), in (owner_type, owner_row, ordinal) order so that the first row of a
-- duplicated key comes first (§5.2 W_DUPLICATE_ATTRIBUTE_KEY). Contract keys (`mcp.app.*`)
-- moved to large_values are inlined; content keys keep their stub (only presence is read).
-- Grain: one row per (owner_type, owner_row, ordinal) of those owners.
-- Reads: core.spans, core.attributes, core.large_values. Params: $trace_ids (hex list).
WITH wanted AS (
    SELECT span_row, resource_row
    FROM core.spans
    WHERE trace_id IN (SELECT unhex(t) FROM (SELECT unnest($trace_ids) AS t))
),
owners AS (
    SELECT 'span' AS owner_type, span_row AS owner_row FROM wanted
    UNION ALL
    SELECT DISTINCT 'resource' AS owner_type, resource_row AS owner_row FROM wanted
)
SELECT
    a.owner_type,
    a.owner_row,
    a.ordinal,
    a.key,
    a.value_type,
    CASE
        WHEN a.string_value IS NULL AND a.key LIKE 'mcp.app.%' THEN lv.string_value
        ELSE a.string_value
    END AS string_value,
    a.int_value,
    a.double_value,
    a.bool_value,
    a.json_value,
    a.large_value_ref
FROM core.attributes a
JOIN owners o ON o.owner_type = a.owner_type AND o.owner_row = a.owner_row
LEFT JOIN core.large_values lv ON lv.large_value_ref = a.large_value_ref
ORDER BY a.owner_type, a.owner_row, a.ordinal
