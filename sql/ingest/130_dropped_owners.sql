-- Everything whose rows and attributes are not written because an identical copy is stored:
-- a dropped duplicate span with its events and links, and a resource or scope mapped to a kept
-- one (sql/ingest/100–101), with the source of the batch that sent it (a group of small sources
-- counts each one's duplicates). A row carried from the group before has no attribute here.
-- Grain: one row per (owner_type, owner_row).
-- Reads: dropped_spans, staged_events, staged_links, staged_resources, staged_scopes,
-- resource_map, scope_map.
CREATE OR REPLACE TEMP TABLE dropped_owners AS
SELECT 'span' AS owner_type, span_row AS owner_row, source_id FROM dropped_spans
UNION ALL
SELECT 'event', event_row + $event_row, source_id FROM staged_events
WHERE span_row + $span_row IN (SELECT span_row FROM dropped_spans)
UNION ALL
SELECT 'link', link_row + $link_row, source_id FROM staged_links
WHERE span_row + $span_row IN (SELECT span_row FROM dropped_spans)
UNION ALL
SELECT 'resource', m.resource_row, r.source_id
FROM resource_map m JOIN staged_resources r ON m.resource_row = r.resource_row + $resource_row
WHERE m.kept_row <> m.resource_row
UNION ALL
SELECT 'scope', m.scope_row, s.source_id
FROM scope_map m JOIN staged_scopes s ON m.scope_row = s.scope_row + $scope_row
WHERE m.kept_row <> m.scope_row;
