-- Undoing an unfinished import: its links. Grain: deletes rows. Reads: core.links.
DELETE FROM core.links WHERE link_row >= $link_row;
