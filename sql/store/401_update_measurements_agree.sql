-- Records valuechain's check of the producer's measurements (store/backfill.py) on the outcome
-- rows it checked; the producer's own `measurements_verified` stays as sent.
-- Grain: one row per checked producer core.trial_outcome row. Reads: checked_measurements
-- (registered by the caller: trial_id, run_id, analyzer_version, agree).
UPDATE core.trial_outcome o
SET measurements_agree = c.agree
FROM checked_measurements c
WHERE o.source = 'producer'
  AND o.trial_id = c.trial_id
  AND o.run_id = c.run_id
  AND o.analyzer_version = c.analyzer_version
