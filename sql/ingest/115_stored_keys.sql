-- The stored spans (earlier sources, or earlier batches of this source) that share a trace id
-- and span id with a span of this batch: the only ones deduplication (sql/ingest/120) and the
-- conflict check (140) compare with. core.spans is read once per batch, two narrow columns.
-- Grain: one row per such stored span. Reads: new_spans, core.spans.
CREATE OR REPLACE TEMP TABLE stored_keys AS
SELECT s.trace_id, s.span_id, s.span_row, s.content_hash
FROM core.spans s
SEMI JOIN new_spans n ON n.trace_id = s.trace_id AND n.span_id = s.span_id
-- the same traces as a one-key filter too, applied in the scan before the two-key join: at 1M
-- stored traces a batch of 1,115 spans took 0.50 s -> 0.15, one of 480k 1.04 -> 0.66
WHERE s.trace_id IN (SELECT trace_id FROM new_spans);
