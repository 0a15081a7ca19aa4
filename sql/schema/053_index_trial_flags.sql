-- Index on core.trial_flags(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.trial_flags.
CREATE INDEX IF NOT EXISTS trial_flags_run_id ON core.trial_flags (run_id);
