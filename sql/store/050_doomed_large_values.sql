-- Delete, step 6: the large values only the departing attributes point at.
-- Grain: one row per large_value_ref. Reads: st_owners, core.attributes.
CREATE OR REPLACE TEMP TABLE st_large_values AS
SELECT DISTINCT a.large_value_ref
FROM core.attributes a
SEMI JOIN st_owners o ON o.owner_type = a.owner_type AND o.owner_row = a.owner_row
WHERE a.large_value_ref IS NOT NULL
  AND a.large_value_ref NOT IN (
      SELECT b.large_value_ref FROM core.attributes b
      ANTI JOIN st_owners o ON o.owner_type = b.owner_type AND o.owner_row = b.owner_row
      WHERE b.large_value_ref IS NOT NULL
  );
