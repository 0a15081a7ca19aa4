-- Index on core.stage_funnel(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.stage_funnel.
CREATE INDEX IF NOT EXISTS stage_funnel_run_id ON core.stage_funnel (run_id);
