-- One classification per (document, trial row) — `classifyStageAnalyticsTrial`, CONTRACT §5.4,
-- in its order: lifecycle, then version, then integrity; NULL detail = INCLUDED. The reader of
-- a document is its `analyzer_version`; the observed analyzer version is the chain's (a chain
-- stored without a top-level version is stored under its measurements', the same fallback).
-- What the evidence adapter found about the trial itself counts as a version-ahead chain
-- (an export contract ahead of ours: nothing was derived) or an unverified one (a malformed
-- trial, or a trial id on several rows); a chain or measurement array with two rows at one
-- position is unverified / invalid, and so is a chain stamped below analyzer 1 (§2.1 admits 0,
-- but no document can carry it, §5.1). Nothing is coerced or partially read (§7.3).
-- For an included trial: its `signature` (one byte per stage: the class it counts as and the
-- reason it tallies, macro 109) and its latency samples (macro 110).
-- Grain: one row per (document, trial row). Reads: a_docs, a_trials, a_versions.
CREATE OR REPLACE TEMP TABLE a_records AS
WITH joined AS (
    SELECT
        d.doc_id,
        d.analyzer_version                      AS reader_version,
        t.status,
        t.evaluator_errored,
        t.trial_exclusion,
        t.intent,
        t.provider,
        t.model,
        t.host_key,
        v.analyzer_version                      AS chain_version,
        coalesce(v.chain_rows, 0)               AS chain_rows,
        coalesce(v.chain_duplicates, false)     AS chain_duplicates,
        v.chain_sig,
        v.reach_sig,
        v.latency_2,
        v.latency_3,
        v.latency_4,
        v.failure_category,
        v.chain_verified,
        coalesce(v.measurements_present, false) AS measurements_present,
        v.measurements_verified,
        coalesce(v.measurement_duplicates, false) AS measurement_duplicates,
        v.measurements_schema_version,
        v.measurements_analyzer_version
    FROM a_docs d
    JOIN a_trials t USING (run_id)
    LEFT JOIN a_versions v
        ON v.tkey = t.tkey AND v.source = d.chain_source AND v.doc_version = d.analyzer_version
), classified AS (
    SELECT
        *,
        CASE
            WHEN evaluator_errored THEN 'evaluatorError'                                 -- 1
            WHEN status IN ('pending', 'running') THEN 'notTerminal'                     -- 2
            WHEN status = 'skipped' THEN 'skipped'
            WHEN status = 'cancelled' THEN 'cancelled'
            WHEN status = 'setup_failed' THEN 'setupFailed'
            WHEN status = 'timed_out' THEN 'timedOut'
            WHEN status IS NULL OR status NOT IN ('completed', 'failed') THEN 'executionFailed'
            WHEN trial_exclusion = 'version' OR chain_version > reader_version
                THEN 'chainVersionAhead'                                                 -- 3
            WHEN measurements_present
                AND measurements_schema_version > $reader_measurements_version
                THEN 'measurementsVersionAhead'                                          -- 4
            WHEN chain_rows = 0 THEN 'chainMissing'                                      -- 5
            WHEN chain_verified IS NOT TRUE OR chain_duplicates OR chain_version < 1
                OR trial_exclusion = 'integrity' THEN 'chainUnverified'                  -- 6
            WHEN NOT measurements_present THEN 'measurementsMissing'                     -- 7
            WHEN measurements_verified IS NOT TRUE OR measurement_duplicates
                THEN 'measurementsInvalid'                                               -- 8
            WHEN measurements_analyzer_version IS DISTINCT FROM chain_version
                THEN 'analyzerMismatch'                                                  -- 9
        END AS exclusion_detail                                                          -- 10: NULL
    FROM joined
)
SELECT
    doc_id,
    intent,
    provider,
    model,
    host_key,
    exclusion_detail,
    $detail_classes[list_position($details, exclusion_detail)]   AS exclusion_class,
    CASE WHEN exclusion_detail IS NULL THEN failure_category END AS failure_category,
    CASE WHEN exclusion_detail IS NULL THEN chain_version END    AS chain_version,
    CASE WHEN exclusion_detail IS NULL THEN measurements_schema_version END
                                                                 AS measurements_schema_version,
    CASE WHEN exclusion_detail IS NULL THEN
        core.stage_byte(chain_sig, reach_sig, 0)
        | (core.stage_byte(chain_sig, reach_sig, 1) << 8)
        | (core.stage_byte(chain_sig, reach_sig, 2) << 16)
        | (core.stage_byte(chain_sig, reach_sig, 3) << 24)
        | (core.stage_byte(chain_sig, reach_sig, 4) << 32)
        | (core.stage_byte(chain_sig, reach_sig, 5) << 40)
    END                                                          AS signature,
    CASE WHEN exclusion_detail IS NULL THEN core.latency_sample(chain_sig, reach_sig, 2, latency_2) END
                                                                 AS latency_2,
    CASE WHEN exclusion_detail IS NULL THEN core.latency_sample(chain_sig, reach_sig, 3, latency_3) END
                                                                 AS latency_3,
    CASE WHEN exclusion_detail IS NULL THEN core.latency_sample(chain_sig, reach_sig, 4, latency_4) END
                                                                 AS latency_4
FROM classified;
