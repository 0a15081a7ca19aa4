-- Everything whose rows and attributes are not written because an identical copy is stored:
-- a dropped duplicate span with its events and links, and a resource or scope mapped to a kept
-- one (sql/ingest/100–101). Grain: one row per (owner_type, owner_row).
-- Reads: dropped_spans, staged_events, staged_links, resource_map, scope_map.
CREATE OR REPLACE TEMP TABLE dropped_owners AS
SELECT 'span' AS owner_type, span_row AS owner_row FROM dropped_spans
UNION ALL
SELECT 'event', event_row + $event_row FROM staged_events
WHERE span_row + $span_row IN (SELECT span_row FROM dropped_spans)
UNION ALL
SELECT 'link', link_row + $link_row FROM staged_links
WHERE span_row + $span_row IN (SELECT span_row FROM dropped_spans)
UNION ALL
SELECT 'resource', resource_row FROM resource_map WHERE kept_row <> resource_row
UNION ALL
SELECT 'scope', scope_row FROM scope_map WHERE kept_row <> scope_row;
