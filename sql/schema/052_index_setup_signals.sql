-- Index on core.setup_signals(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.setup_signals.
CREATE INDEX IF NOT EXISTS setup_signals_run_id ON core.setup_signals (run_id);
