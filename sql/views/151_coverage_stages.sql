-- The six links in chain order (CONTRACT §1.1) and whether the runner decides each one from
-- what it observed setting the run up (connection, discovery: seed 000), for coverage.
-- `contract.vocab.Stage` and `contract.coverage.RUNNER_DECIDED`, which
-- tests/contract/test_coverage_routes.py holds this view to.
-- Grain: one row per stage. Reads: nothing.
CREATE OR REPLACE VIEW core.coverage_stages AS
SELECT * FROM (VALUES
    (0, 'connection', true),
    (1, 'discovery', true),
    (2, 'selection', false),
    (3, 'call', false),
    (4, 'response', false),
    (5, 'userValue', false)
) AS s(stage_index, stage, runner_decided);
