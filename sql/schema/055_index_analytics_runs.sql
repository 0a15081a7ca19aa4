-- Index on core.analytics_runs(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.analytics_runs.
CREATE INDEX IF NOT EXISTS analytics_runs_run_id ON core.analytics_runs (run_id);
