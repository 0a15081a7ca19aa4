-- Store info: the analyzer versions present — chains by source and version, and documents by
-- chain source and reader version. Grain: one row per (kind, source, analyzer_version).
-- Reads: core.trial_outcome, core.analytics_documents.
SELECT 'chains' AS kind, source, analyzer_version, count(*) AS count
FROM core.trial_outcome GROUP BY ALL
UNION ALL
SELECT 'documents', chain_source, analyzer_version, count(*)
FROM core.analytics_documents GROUP BY ALL
ORDER BY kind, source, analyzer_version;
