-- The import ledger: what was imported, from where, and how every record and span was accounted.
-- Grain: one row per accepted source. Reads: core.sources.
CREATE OR REPLACE VIEW main.imports AS
SELECT * FROM core.sources;
