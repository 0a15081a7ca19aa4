-- Grain: one row per link of a kept span. Reads: staged_links, dropped_owners.
INSERT INTO core.links
SELECT link_row + $link_row, span_row + $span_row, ordinal, trace_id, span_id, trace_state,
       flags, dropped_attributes_count
FROM staged_links
WHERE link_row + $link_row NOT IN (
    SELECT owner_row FROM dropped_owners WHERE owner_type = 'link');
