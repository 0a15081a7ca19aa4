-- Grain: one row per event of a kept span. Reads: staged_events, dropped_owners.
INSERT INTO core.events
SELECT event_row + $event_row, span_row + $span_row, ordinal, time_unix_nano, time, name,
       dropped_attributes_count
FROM staged_events
WHERE event_row + $event_row NOT IN (
    SELECT owner_row FROM dropped_owners WHERE owner_type = 'event');
