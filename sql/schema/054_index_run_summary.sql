-- Index on core.run_summary(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.run_summary.
CREATE INDEX IF NOT EXISTS run_summary_run_id ON core.run_summary (run_id);
