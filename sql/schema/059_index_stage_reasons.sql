-- Index on core.stage_reasons(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.stage_reasons.
CREATE INDEX IF NOT EXISTS stage_reasons_run_id ON core.stage_reasons (run_id);
