-- `stageAnalyticsParityBlockers(a, b)` (CONTRACT §5.11) over two `EvalStageAnalyticsV1`
-- documents (JSON): the blockers in the function's emission order — NOT the vocabulary order of
-- §1.9 (`mixedSourceVersions` comes before `differentAnalyzerVersion`); never re-sort it. An
-- empty list means "these measured comparable things". An absent identity blocks (two absences
-- never match) and then no `different*` is emitted for it; a row carrying source versions is
-- incomparable even to itself. The twin of `query/parity.py`: one table of cases drives both
-- (tests/query/test_parity.py).
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.document_parity_blockers(a, b) AS list_filter([
    CASE WHEN a->>'$.runGroupId' IS NULL OR b->>'$.runGroupId' IS NULL THEN 'missingRunGroup'
         WHEN a->>'$.runGroupId' <> b->>'$.runGroupId' THEN 'differentRunGroup' END,
    CASE WHEN a->>'$.configRevision' IS NULL OR b->>'$.configRevision' IS NULL
         THEN 'missingConfigIdentity'
         WHEN a->>'$.configRevision' <> b->>'$.configRevision'
         THEN 'differentConfigIdentity' END,
    CASE WHEN a->>'$.caseSetFingerprint' IS NULL OR b->>'$.caseSetFingerprint' IS NULL
         THEN 'missingCaseSetIdentity'
         WHEN a->>'$.caseSetFingerprint' <> b->>'$.caseSetFingerprint'
         THEN 'differentCaseSetIdentity' END,
    CASE WHEN json_exists(a, '$.sourceStageAnalyzerVersions')
           OR json_exists(a, '$.sourceMeasurementsSchemaVersions')
           OR json_exists(b, '$.sourceStageAnalyzerVersions')
           OR json_exists(b, '$.sourceMeasurementsSchemaVersions')
         THEN 'mixedSourceVersions' END,
    CASE WHEN (a->>'$.stageAnalyzerVersion')::BIGINT
              IS DISTINCT FROM (b->>'$.stageAnalyzerVersion')::BIGINT
         THEN 'differentAnalyzerVersion' END,
    CASE WHEN (a->>'$.measurementsSchemaVersion')::BIGINT
              IS DISTINCT FROM (b->>'$.measurementsSchemaVersion')::BIGINT
         THEN 'differentMeasurementsVersion' END,
    CASE WHEN a->>'$.measurementUnit' IS DISTINCT FROM b->>'$.measurementUnit'
         THEN 'differentMeasurementUnit' END,
    CASE WHEN a->>'$.materializationState' = 'provisional'
           OR b->>'$.materializationState' = 'provisional'
         THEN 'provisional' END
], lambda blocker: blocker IS NOT NULL);
