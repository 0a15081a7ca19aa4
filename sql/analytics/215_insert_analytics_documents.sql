-- Replace, step 2: the documents (validated by the caller before this runs).
-- Grain: one row per document. Reads: a_documents.
INSERT INTO core.analytics_documents BY NAME
SELECT run_id, chain_source, analyzer_version, document
FROM a_documents;
