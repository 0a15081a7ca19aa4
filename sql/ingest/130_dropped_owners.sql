-- Everything that hangs off a dropped duplicate span (its events and links), so their rows and
-- attributes are not written twice. Grain: one row per (owner_type, owner_row).
-- Reads: dropped_spans, staged_events, staged_links.
CREATE OR REPLACE TEMP TABLE dropped_owners AS
SELECT 'span' AS owner_type, span_row AS owner_row FROM dropped_spans
UNION ALL
SELECT 'event', event_row + $event_row FROM staged_events
WHERE span_row + $span_row IN (SELECT span_row FROM dropped_spans)
UNION ALL
SELECT 'link', link_row + $link_row FROM staged_links
WHERE span_row + $span_row IN (SELECT span_row FROM dropped_spans);
