-- Delete: a shared resource stored with an emptied source now belongs to the oldest source
-- whose spans point at it. Grain: updates core.resources rows. Reads: st_sources, core.spans.
UPDATE core.resources r
SET source_id = k.source_id
FROM (
    SELECT resource_row, min(source_id) AS source_id FROM core.spans GROUP BY resource_row
) k
WHERE k.resource_row = r.resource_row
  AND r.source_id IN (SELECT source_id FROM st_sources WHERE emptied);
