-- Delete: the issues of emptied sources and of departing spans. Grain: deletes rows.
-- Reads: st_sources, st_spans.
DELETE FROM core.issues
WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied)
   OR span_row IN (SELECT span_row FROM st_spans);
