-- What each trace's chains were last derived from: its span count and last span row at the time
-- the derive step rebuilt it from its evidence (every analyzer version replaced). A trace whose
-- spans differ now, or one never derived (imported with --no-derive, or cut short before its
-- derive step), has evidence newer than its chains: `recompute` re-derives it.
-- Grain: one row per trace_id. Reads: nothing (derive step).
CREATE TABLE IF NOT EXISTS core.derived_evidence (
    trace_id      BLOB NOT NULL,
    span_count    BIGINT NOT NULL,
    last_span_row BIGINT NOT NULL
);
