-- To store schema version 12: core.trial_outcome records valuechain's own check of each chain's
-- measurements against the chain (`measurements_agree`; CONTRACT §7.4, TRACE-FORMAT §5.2
-- W_CHAIN_INVALID), beside the verdicts as sent. A derived chain's `measurements_verified` is
-- that check already; the producer's rows are checked by store/backfill.py after this script.
-- Grain: adds a column, fills it for derived rows. Reads: core.trial_outcome.
-- (A migration script: several statements.)
ALTER TABLE core.trial_outcome ADD COLUMN IF NOT EXISTS measurements_agree BOOLEAN;
UPDATE core.trial_outcome SET measurements_agree = measurements_verified WHERE source = 'derived';
