-- The attribute rows of the spans of a set of traces and of those spans' resources, long
-- (TRACE-FORMAT §6). Contract keys (`mcp.app.*`) moved to large_values are inlined; content
-- keys keep their stub (only presence is read). Unordered: the reader sorts them by
-- (owner_type, owner_row, ordinal) so that the first row of a duplicated key comes first
-- (§5.2 W_DUPLICATE_ATTRIBUTE_KEY; `evidence.frames.ordered_attributes`), in the worker
-- process that stages the batch rather than in the one that holds the store.
-- Span and resource owners are joined separately, so the span join's row range prunes the
-- attribute row groups of other traces (a batch reads its own rows, whatever the store size);
-- resource attributes come from their copy ordered by resource (000_resource_attributes.sql).
-- Low-cardinality text leaves as dictionaries (ENUM), cheaper to hand over than strings.
-- Grain: one row per (owner_type, owner_row, ordinal) of those owners.
-- Reads: core.spans, core.attributes, evidence_resource_attributes, core.large_values.
-- Params: $trace_ids (hex list); $first_row, $last_row: the span rows they lie within (as in
-- 010_trial_spans.sql).
WITH wanted AS (
    SELECT span_row, resource_row
    FROM core.spans
    WHERE span_row BETWEEN $first_row AND $last_row
        AND trace_id IN (SELECT unhex(t) FROM (SELECT unnest($trace_ids) AS t))
),
owned AS (
    SELECT a.*
    FROM core.attributes a
    JOIN wanted w ON a.owner_row = w.span_row
    WHERE a.owner_type = 'span'
    UNION ALL
    SELECT a.*
    FROM temp.evidence_resource_attributes a
    JOIN (SELECT DISTINCT resource_row FROM wanted) r ON a.owner_row = r.resource_row
)
SELECT
    CAST(a.owner_type AS ENUM('resource', 'span')) AS owner_type,
    a.owner_row,
    a.ordinal,
    a.key,
    -- the types the adapter tells apart (evidence.classify.VALUE_TYPES); any other, as
    -- 'empty', reads as null — both mean "not one of those" there (TRY_CAST: a fifth of
    -- the query's CPU cheaper than testing membership first)
    TRY_CAST(a.value_type AS ENUM('string', 'int', 'double', 'bool', 'array', 'kvlist', 'bytes'))
        AS value_type,
    CASE
        WHEN a.string_value IS NULL AND a.key LIKE 'mcp.app.%' THEN lv.string_value
        ELSE a.string_value
    END AS string_value,
    a.int_value,
    a.double_value,
    a.bool_value,
    a.json_value
    -- not large_value_ref: the adapter never reads it, and the nullable column cost a fifth
    -- of the query's CPU
FROM owned a
LEFT JOIN core.large_values lv ON lv.large_value_ref = a.large_value_ref
