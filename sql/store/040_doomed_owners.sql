-- Delete, step 5: every attribute owner that goes — the spans, their events and links, and
-- the resources and scopes no remaining span points at (resources and scopes are stored once
-- and may be shared across sources: one still in use stays). A resource or scope of an emptied
-- source that no span points at goes too.
-- Grain: one row per (owner_type, owner_row). Reads: st_spans, st_sources, core.*.
CREATE OR REPLACE TEMP TABLE st_owners AS
WITH kept AS (
    SELECT resource_row, scope_row FROM core.spans
    WHERE span_row NOT IN (SELECT span_row FROM st_spans)
)
SELECT 'span' AS owner_type, span_row AS owner_row FROM st_spans
UNION ALL
SELECT 'event', event_row FROM core.events WHERE span_row IN (SELECT span_row FROM st_spans)
UNION ALL
SELECT 'link', link_row FROM core.links WHERE span_row IN (SELECT span_row FROM st_spans)
UNION ALL
SELECT 'resource', r.resource_row
FROM core.resources r
WHERE (r.resource_row IN (SELECT resource_row FROM st_spans)
       OR r.source_id IN (SELECT source_id FROM st_sources WHERE emptied))
  AND r.resource_row NOT IN (SELECT resource_row FROM kept)
  AND r.resource_row NOT IN (
      SELECT resource_row FROM core.scopes
      WHERE scope_row IN (SELECT scope_row FROM kept)
  )
UNION ALL
SELECT 'scope', c.scope_row
FROM core.scopes c
WHERE (c.scope_row IN (SELECT scope_row FROM st_spans)
       OR c.resource_row IN (
           SELECT resource_row FROM core.resources
           WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied)
       ))
  AND c.scope_row NOT IN (SELECT scope_row FROM kept);
