-- Trend rows: the three stage rates of every analytics document whose run can join a trend
-- partition (CONTRACT §5.11) — its parity against itself is unblocked (`self_blockers` of
-- core.document_parity_facts empty: all three identities present, no mixed source versions,
-- `final`) — keyed by the partition: (run_group_id, config_revision, case_set_fingerprint,
-- stage_analyzer_version, measurements_schema_version), ordered within it by `completed_at`
-- (then run_id) by the reader. The blocked runs are listed by sql/query/trend_outside.sql.
-- One row is one run's own tally: nothing is summed or merged across runs (§5.8) — a
-- partition is a series. Rates keep `stage_rates`' envelope: value, state, numerator,
-- denominator (NULL value and 0/0 when notMeasured), and the exclusion counts beside them.
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index).
-- Reads: main.stage_rates, core.analytics_runs, core.run_summary, core.document_parity_facts.
CREATE OR REPLACE VIEW main.stage_trend AS
SELECT
    s.run_group_id,
    s.config_revision,
    s.case_set_fingerprint,
    a.stage_analyzer_version,
    a.measurements_schema_version,
    s.suite_id,
    r.run_id,
    s.completed_at,
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
    r.not_measured
FROM main.stage_rates r
JOIN core.analytics_runs a
    ON a.run_id = r.run_id
    AND a.chain_source = r.chain_source
    AND a.analyzer_version = r.analyzer_version
JOIN core.run_summary s ON s.run_id = r.run_id
JOIN core.document_parity_facts p
    ON p.run_id = r.run_id
    AND p.chain_source = r.chain_source
    AND p.analyzer_version = r.analyzer_version
WHERE len(p.self_blockers) = 0;
