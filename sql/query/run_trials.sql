-- One run's trials with where each stopped: case, variant, repetition, the first failed link,
-- the reason on that link and the failure category, and the link asked about ($stage: its
-- state and reason; null: none asked). Filters: $case (case id, key or title; null: any),
-- $state (a link in this state — the link $stage when given; null: any), $first_failed
-- (the first failed link is $stage: --stage without --state). Derived chains at $analyzer.
-- Grain: one row per trial of the run. Reads: main.trials, main.trial_outcome, main.stage_chain.
WITH chain AS (
    SELECT trial_id, stage, state, reason
    FROM main.stage_chain
    WHERE run_id = $run_id AND source = 'derived' AND analyzer_version = $analyzer
),
picked AS (
    SELECT
        t.trial_id,
        coalesce(t.case_title, t.case_key, t.case_id)               AS "case",
        nullif(concat_ws('/', t.provider, t.model), '')              AS variant,
        t.repetition,
        t.status,
        o.first_failed_stage,
        stopped.reason                                               AS reason,
        o.failure_category                                           AS category,
        asked.state                                                  AS stage_state,
        asked.reason                                                 AS stage_reason
    FROM main.trials AS t
    JOIN main.trial_outcome AS o
      ON o.trial_id = t.trial_id AND o.source = 'derived' AND o.analyzer_version = $analyzer
    LEFT JOIN chain AS stopped
      ON stopped.trial_id = t.trial_id AND stopped.stage = o.first_failed_stage
    LEFT JOIN chain AS asked
      ON asked.trial_id = t.trial_id AND asked.stage = $stage
    WHERE t.run_id = $run_id
      AND ($case IS NULL OR $case IN (t.case_id, t.case_key, t.case_title))
      AND (NOT $first_failed OR o.first_failed_stage = $stage)
      AND (
          $state IS NULL
          OR ($stage IS NOT NULL AND asked.state = $state)
          OR ($stage IS NULL AND EXISTS (
                SELECT 1 FROM chain AS c WHERE c.trial_id = t.trial_id AND c.state = $state))
      )
)
SELECT *
FROM picked
ORDER BY "case", variant, repetition, trial_id;
