-- To store schema version 9: core.decision_summaries is new and starts empty. A run of an older
-- store gets its summaries the next time it is materialized (`valuechain materialize`); until
-- then `valuechain verdict` decides it on read from the stored trials (nothing is written).
-- The statement only proves the table exists. Grain: none. Reads: core.decision_summaries.
DELETE FROM core.decision_summaries WHERE false;
