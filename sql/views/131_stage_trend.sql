-- Trend rows: the three stage rates of every analytics document whose run can join a trend
-- partition (CONTRACT §5.11) — its parity against itself is unblocked (`self_blockers` of
-- core.document_parity_facts empty: all three identities present, no mixed source versions,
-- `final`) — keyed by the partition: (run_group_id, config_revision, case_set_fingerprint,
-- stage_analyzer_version, measurements_schema_version). `run_position` is the run's place in
-- its partition's series (1 = the earliest completion; no completion time sorts last, then
-- run_id); `trend_order` orders every partition's series one after the other (partitions in
-- key order) for one chain source and reader analyzer. The blocked runs are listed by
-- sql/query/trend_outside.sql. One row is one run's own tally: nothing is summed or merged
-- across runs (§5.8) — a partition is a series. Rates keep `stage_rates`' envelope: value,
-- state, numerator, denominator (NULL value and 0/0 when notMeasured), and the exclusion
-- counts beside them.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index).
-- Reads: main.stage_rates, core.document_parity_facts.
CREATE OR REPLACE VIEW main.stage_trend AS
WITH joinable AS (
    SELECT
        *,
        row_number() OVER (
            PARTITION BY chain_source, analyzer_version, run_group_id, config_revision,
                case_set_fingerprint, stage_analyzer_version, measurements_schema_version
            ORDER BY completed_at NULLS LAST, run_id
        ) AS run_position,
        row_number() OVER (
            PARTITION BY chain_source, analyzer_version
            ORDER BY run_group_id, config_revision, case_set_fingerprint, stage_analyzer_version,
                measurements_schema_version, completed_at NULLS LAST, run_id
        ) AS trend_order
    FROM core.document_parity_facts
    WHERE len(self_blockers) = 0
)
SELECT
    j.run_group_id,
    j.config_revision,
    j.case_set_fingerprint,
    j.stage_analyzer_version,
    j.measurements_schema_version,
    j.run_position,
    j.suite_id,
    r.run_id,
    j.completed_at,
    r.chain_source,
    r.analyzer_version,
    r.slice_index,
    r.slice_dimension,
    r.intent,
    r.provider,
    r.model,
    r.host_key,
    r.stage_index,
    r.stage,
    r.measured_pass_rate,
    r.measured_pass_rate_state,
    r.measured_pass_rate_numerator,
    r.measured_pass_rate_denominator,
    r.reach_rate,
    r.reach_rate_state,
    r.reach_rate_numerator,
    r.reach_rate_denominator,
    r.measurement_coverage_rate,
    r.measurement_coverage_rate_state,
    r.measurement_coverage_rate_numerator,
    r.measurement_coverage_rate_denominator,
    r.not_applicable,
    r.reach_unknown,
    r.not_measured,
    j.trend_order
FROM main.stage_rates r
JOIN joinable j
    ON j.run_id = r.run_id
    AND j.chain_source = r.chain_source
    AND j.analyzer_version = r.analyzer_version;
