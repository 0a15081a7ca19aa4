-- How many trials the store holds: whether a derive of some traces is a small share of it.
-- Grain: one row. Reads: core.trials.
SELECT count(*) AS trials FROM core.trials;
