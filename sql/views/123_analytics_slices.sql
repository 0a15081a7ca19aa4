-- The retained slices of every analytics document, in emission order (CONTRACT §5.2).
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index).
-- Reads: core.analytics_slices.
CREATE OR REPLACE VIEW main.analytics_slices AS
SELECT * FROM core.analytics_slices;
