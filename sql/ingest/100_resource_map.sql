-- Each resource is stored once: a staged resource identical to a stored one (an earlier source
-- or batch) or to an earlier one of this batch maps to that row; its spans point there and its
-- attributes are not written again (TRACE-FORMAT §5.1 counts them as deduplicated).
-- Grain: one row per staged resource: its store-wide row and the row its spans use.
-- Reads: staged_resources, core.resources.
CREATE OR REPLACE TEMP TABLE resource_map AS
WITH staged AS (
    SELECT resource_row + $resource_row AS resource_row, content_hash FROM staged_resources
), stored AS (
    SELECT content_hash, min(resource_row) AS kept_row
    FROM core.resources
    WHERE content_hash IN (SELECT content_hash FROM staged)
    GROUP BY content_hash
), first_staged AS (
    SELECT content_hash, min(resource_row) AS kept_row FROM staged GROUP BY content_hash
)
SELECT s.resource_row, coalesce(st.kept_row, f.kept_row) AS kept_row
FROM staged s
JOIN first_staged f USING (content_hash)
LEFT JOIN stored st USING (content_hash)
UNION ALL
SELECT resource_row, kept_row FROM carried_resource_map;
