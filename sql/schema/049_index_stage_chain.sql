-- Index on core.stage_chain(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.stage_chain.
CREATE INDEX IF NOT EXISTS stage_chain_run_id ON core.stage_chain (run_id);
