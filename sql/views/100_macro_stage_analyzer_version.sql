-- valuechain's current stage analyzer version, for views that pick the default document
-- (derived chains at the current analyzer, DESIGN.md). Pinned to
-- `contract.versions.STAGE_ANALYZER_VERSION` by tests/materialize/test_analytics_sql.py.
-- Grain: none. Reads: nothing.
CREATE OR REPLACE MACRO core.current_stage_analyzer_version() AS 12;
