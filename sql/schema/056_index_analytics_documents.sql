-- Index on core.analytics_documents(run_id): materializing (and reading) one run touches only that run's rows,
-- so its cost does not grow with the store (issue "Funnels"; bench/materialize.py).
-- Grain: none. Reads: core.analytics_documents.
CREATE INDEX IF NOT EXISTS analytics_documents_run_id ON core.analytics_documents (run_id);
