-- The coverage lint of CONTRACT Q5 (issue 19), per eval run and case:
-- `userValueUngradable` — userValue is applicable on some trial (assertionCount counts every
--   non-selection kind, advisory ones too, and an expected output; a widget case) yet the
--   case has no gating userValue-routed check and no requested goal judge: nothing can grade
--   it, so it stays notMeasured/notReached. `kinds` = what made it applicable (the case's
--   non-selection predicate kinds, `expectedOutput`, `widgetRender`); `trials` = trials where
--   it was applicable.
-- `toolCalledWithRow` — a gating `toolCalledWith` arrived as a predicate row rather than as
--   matcher expectations: it falls through to userValue (§2.5). `trials` = trials carrying it.
-- `gatingObservation` — an observation kind arrived gating (§3.1 refuses it at write time):
--   derivation lets it decide `stage`; coverage never counts it. `trials` = trials carrying it.
-- Grain: one row per (run_id, case_id, rule, stage). Reads: core.coverage_checks, core.trials,
-- core.stage_chain, core.spans, core.attributes.
CREATE OR REPLACE VIEW main.coverage_lint AS
WITH checks AS MATERIALIZED (SELECT * FROM core.coverage_checks),
cases AS (
    SELECT trial_id, run_id, suite_id, trace_id, coalesce(case_id, case_key, trial_id) AS case_ref
    FROM core.trials
    WHERE contract
), applicable AS (  -- trials whose derived userValue row is applicable
    SELECT t.trial_id
    FROM cases t
    JOIN core.stage_chain c ON c.trial_id = t.trial_id AND c.run_id = t.run_id
    WHERE c.source = 'derived' AND c.analyzer_version = core.current_stage_analyzer_version()
      AND c.stage = 'userValue' AND c.state <> 'notApplicable'
), root_flags AS (  -- the root's authored facts that make userValue applicable
    SELECT
        t.trial_id,
        unnest(list_distinct([
            CASE WHEN a.key = 'mcp.app.expect.output_defined' AND a.bool_value THEN 'expectedOutput' END,
            CASE WHEN (a.key = 'mcp.app.authored.expects_widget_render' AND a.bool_value)
                   OR (a.key = 'mcp.app.case.type' AND a.string_value = 'widget_probe')
                 THEN 'widgetRender' END
        ])) AS reason
    FROM cases t
    JOIN core.spans s ON s.trace_id = t.trace_id AND s.mcp_app_role = 'trial'
    JOIN core.attributes a ON a.owner_type = 'span' AND a.owner_row = s.span_row
    WHERE a.key IN ('mcp.app.expect.output_defined', 'mcp.app.authored.expects_widget_render',
                    'mcp.app.case.type')
), graded AS (  -- cases with something that can grade userValue
    SELECT DISTINCT run_id, case_ref
    FROM checks
    WHERE decides = 'userValue' OR gating AND routed_stage = 'userValue'
), ungradable AS (
    SELECT t.suite_id, t.run_id, t.case_ref, count(DISTINCT t.trial_id) AS trials
    FROM cases t
    JOIN applicable USING (trial_id)
    ANTI JOIN graded g ON g.run_id = t.run_id AND g.case_ref = t.case_ref
    GROUP BY t.suite_id, t.run_id, t.case_ref
), ungradable_reasons AS (
    SELECT u.run_id, u.case_ref, list_sort(list_distinct(list(r.reason))) AS kinds
    FROM ungradable u
    LEFT JOIN (
        SELECT run_id, case_ref, check_kind AS reason
        FROM checks
        WHERE routed_stage IS NOT NULL AND routed_stage <> 'selection'
        UNION ALL
        SELECT c.run_id, c.case_ref, f.reason
        FROM root_flags f JOIN cases c USING (trial_id)
        WHERE f.reason IS NOT NULL
    ) r ON r.run_id = u.run_id AND r.case_ref = u.case_ref
    GROUP BY u.run_id, u.case_ref
)
SELECT u.suite_id, u.run_id, u.case_ref AS case_id, 'userValueUngradable' AS rule,
       'userValue' AS stage, list_filter(r.kinds, lambda k: k IS NOT NULL) AS kinds, u.trials
FROM ungradable u
JOIN ungradable_reasons r USING (run_id, case_ref)
UNION ALL
SELECT suite_id, run_id, case_ref, 'toolCalledWithRow', routed_stage, ['toolCalledWith'],
       count(DISTINCT trial_id)
FROM checks
WHERE check_kind = 'toolCalledWith' AND gating AND routed_stage IS NOT NULL
GROUP BY suite_id, run_id, case_ref, routed_stage
UNION ALL
SELECT suite_id, run_id, case_ref, 'gatingObservation', routed_stage,
       list_sort(list_distinct(list(check_kind))), count(DISTINCT trial_id)
FROM checks
WHERE observation AND gating
GROUP BY suite_id, run_id, case_ref, routed_stage;
