-- Undoing an unfinished import: its spans. Grain: deletes rows. Reads: core.spans.
DELETE FROM core.spans WHERE span_row >= $span_row;
