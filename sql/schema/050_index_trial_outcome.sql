-- Index on core.trial_outcome(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.trial_outcome.
CREATE INDEX IF NOT EXISTS trial_outcome_run_id ON core.trial_outcome (run_id);
