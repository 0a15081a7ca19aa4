-- What CONTRACT §5.11 reads of an `EvalStageAnalyticsV1` document (JSON), parsed once into a
-- small struct, so the comparison never carries whole documents. An absent key is NULL
-- (documents omit absent keys, never write null, §0.2); a source-versions list is its JSON.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.parity_identity(document) AS json_transform(document, '{
    "runGroupId": "VARCHAR",
    "configRevision": "VARCHAR",
    "caseSetFingerprint": "VARCHAR",
    "sourceStageAnalyzerVersions": "JSON",
    "sourceMeasurementsSchemaVersions": "JSON",
    "stageAnalyzerVersion": "BIGINT",
    "measurementsSchemaVersion": "BIGINT",
    "measurementUnit": "VARCHAR",
    "materializationState": "VARCHAR"
}');
