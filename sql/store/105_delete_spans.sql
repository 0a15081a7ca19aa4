-- Delete: the spans. Grain: deletes rows. Reads: st_spans.
DELETE FROM core.spans WHERE span_row IN (SELECT span_row FROM st_spans);
