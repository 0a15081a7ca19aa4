-- What each eval run's suite measures, link by link (issue 19): `authoring_cases` = cases with
-- a check that can decide the link (`core.coverage_checks.decides`) and `check_kinds` = those
-- checks' kinds (evaluator ids for the matcher and the goal judge); `advisory` = the advisory
-- and observation checks filed at the link, listed beside it and never counted. Trial counts
-- come from the derived chains at the current analyzer: `measured` = passed or failed;
-- `not_applicable`, `not_measured` and `not_reached` as the state says; `trials` every trial
-- of the run (one without such a chain is in none of the four). A link no case can decide is
-- `unmeasured_by_suite` unless the runner decides it (connection, discovery: not a gap), and
-- `suggested_kinds` then names the kinds that would let a case decide it (§3.2 order: the
-- link's non-observation kinds; at selection `toolCalledWith`, which the matcher grades).
-- `latest` marks each suite's latest run (`core.coverage_runs`). Runs whose trials carry no
-- mcp.app contract are not suites: absent.
-- Grain: one row per (run_id, stage_index). Reads: core.coverage_runs, core.trials,
-- core.stage_chain, core.coverage_checks, core.coverage_stages, core.check_routes.
CREATE OR REPLACE VIEW main.suite_coverage AS
WITH checks AS MATERIALIZED (SELECT * FROM core.coverage_checks),
ranked AS (
    SELECT * FROM core.coverage_runs
), states AS (
    SELECT
        c.run_id, c.stage,
        count(*) FILTER (c.state IN ('passed', 'failed')) AS measured,
        count(*) FILTER (c.state = 'notApplicable') AS not_applicable,
        count(*) FILTER (c.state = 'notMeasured') AS not_measured,
        count(*) FILTER (c.state = 'notReached') AS not_reached
    FROM core.stage_chain c
    JOIN core.trials t ON t.trial_id = c.trial_id AND t.run_id = c.run_id AND t.contract
    WHERE c.source = 'derived' AND c.analyzer_version = core.current_stage_analyzer_version()
    GROUP BY c.run_id, c.stage
), deciding AS (
    SELECT
        run_id, decides AS stage,
        count(DISTINCT case_ref) AS authoring_cases,
        list_sort(list_distinct(list(check_kind))) AS check_kinds
    FROM checks
    WHERE decides IS NOT NULL
    GROUP BY run_id, decides
), beside AS (
    SELECT
        run_id, files_at AS stage,
        count(DISTINCT case_ref) AS advisory_cases,
        list_sort(list_distinct(list(check_kind))) AS advisory
    FROM checks
    WHERE decides IS NULL
    GROUP BY run_id, files_at
), suggested AS (
    SELECT filed_link AS stage, list(kind ORDER BY ordinal) AS kinds
    FROM core.check_routes
    WHERE analyzer_version = core.current_stage_analyzer_version() AND NOT observation
      AND filed_link IS NOT NULL
    GROUP BY filed_link
)
SELECT
    r.suite_id,
    r.run_id,
    r.latest,
    s.stage_index,
    s.stage,
    s.runner_decided,
    coalesce(d.authoring_cases, 0) AS authoring_cases,
    coalesce(d.check_kinds, []) AS check_kinds,
    coalesce(st.measured, 0) AS measured,
    coalesce(st.not_applicable, 0) AS not_applicable,
    coalesce(st.not_measured, 0) AS not_measured,
    coalesce(st.not_reached, 0) AS not_reached,
    r.trials,
    coalesce(b.advisory, []) AS advisory,
    coalesce(b.advisory_cases, 0) AS advisory_cases,
    d.stage IS NULL AND NOT s.runner_decided AS unmeasured_by_suite,
    CASE WHEN d.stage IS NULL THEN coalesce(g.kinds, []) ELSE [] END AS suggested_kinds
FROM ranked r
CROSS JOIN core.coverage_stages s
LEFT JOIN states st ON st.run_id = r.run_id AND st.stage = s.stage
LEFT JOIN deciding d ON d.run_id = r.run_id AND d.stage = s.stage
LEFT JOIN beside b ON b.run_id = r.run_id AND b.stage = s.stage
LEFT JOIN suggested g ON g.stage = s.stage;
