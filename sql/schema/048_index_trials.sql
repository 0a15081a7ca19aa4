-- Index on core.trials(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.trials.
CREATE INDEX IF NOT EXISTS trials_run_id ON core.trials (run_id);
