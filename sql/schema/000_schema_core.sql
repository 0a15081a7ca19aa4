-- The stored tables live in schema `core`; users query the views in `main` (sql/views/).
-- Grain: none. Reads: nothing.
CREATE SCHEMA IF NOT EXISTS core;
