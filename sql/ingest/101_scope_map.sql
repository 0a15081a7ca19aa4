-- Each scope is stored once, as each resource is (a scope's identity includes its resource's):
-- a staged scope identical to a stored one or to an earlier one of this batch maps to that row.
-- Grain: one row per staged scope: its store-wide row and the row its spans use.
-- Reads: staged_scopes, core.scopes.
CREATE OR REPLACE TEMP TABLE scope_map AS
WITH staged AS (
    SELECT scope_row + $scope_row AS scope_row, content_hash FROM staged_scopes
), stored AS (
    SELECT content_hash, min(scope_row) AS kept_row
    FROM core.scopes
    WHERE content_hash IN (SELECT content_hash FROM staged)
    GROUP BY content_hash
), first_staged AS (
    SELECT content_hash, min(scope_row) AS kept_row FROM staged GROUP BY content_hash
)
SELECT s.scope_row, coalesce(st.kept_row, f.kept_row) AS kept_row
FROM staged s
JOIN first_staged f USING (content_hash)
LEFT JOIN stored st USING (content_hash)
UNION ALL
SELECT scope_row, kept_row FROM carried_scope_map;
