-- Undoing an unfinished import: its events. Grain: deletes rows. Reads: core.events.
DELETE FROM core.events WHERE event_row >= $event_row;
