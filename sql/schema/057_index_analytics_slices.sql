-- Index on core.analytics_slices(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.analytics_slices.
CREATE INDEX IF NOT EXISTS analytics_slices_run_id ON core.analytics_slices (run_id);
