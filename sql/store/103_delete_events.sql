-- Delete: the events of departing spans. Grain: deletes rows. Reads: st_spans.
DELETE FROM core.events WHERE span_row IN (SELECT span_row FROM st_spans);
