-- Per-stage tallies of each retained slice (CONTRACT §5.3), counts only. The per-stage
-- exclusions are the `not_applicable`, `reach_unknown` and `not_measured` counts (§5.5);
-- `reasons` lists (reason, count) in the 29-reason vocabulary order, zero counts omitted.
-- `latency_count` 0 means no sample (total/min/max NULL, mean undefined — never 0, §5.7).
-- Never sum these rows across stages or across runs (seed 001 population rules 6–7).
-- Grain: one row per (run_id, chain_source, analyzer_version, slice_index, stage_index).
-- Reads: nothing (materialize).
CREATE TABLE IF NOT EXISTS core.stage_funnel (
    run_id           VARCHAR NOT NULL,
    chain_source     VARCHAR NOT NULL,
    analyzer_version INTEGER NOT NULL,
    slice_index      INTEGER NOT NULL,
    slice_dimension  VARCHAR NOT NULL,
    intent           VARCHAR,
    provider         VARCHAR,
    model            VARCHAR,
    host_key         VARCHAR,
    stage_index      TINYINT NOT NULL,
    stage            VARCHAR NOT NULL,
    applicable       BIGINT NOT NULL,
    reached          BIGINT NOT NULL,
    not_reached      BIGINT NOT NULL,
    reach_unknown    BIGINT NOT NULL,
    measured         BIGINT NOT NULL,
    passed           BIGINT NOT NULL,
    failed           BIGINT NOT NULL,
    not_measured     BIGINT NOT NULL,
    not_applicable   BIGINT NOT NULL,
    reasons          STRUCT(reason_index TINYINT, reason VARCHAR, count BIGINT)[] NOT NULL,
    latency_count    BIGINT NOT NULL,
    latency_total_ms DOUBLE,
    latency_min_ms   DOUBLE,
    latency_max_ms   DOUBLE
);
