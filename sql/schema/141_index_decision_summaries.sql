-- Index on core.decision_summaries(run_id): re-materializing one run touches only its rows.
-- Grain: none. Reads: core.decision_summaries.
CREATE INDEX IF NOT EXISTS decision_summaries_run_id ON core.decision_summaries (run_id);
