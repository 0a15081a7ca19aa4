-- To store schema version 2: core.trial_issues.trace_id holds lower-case hex text, as the
-- evidence adapter reports it (version 1 stores made before that change hold BLOBs). Valid on
-- either column type: only BLOB values are converted. Grain: rewrites a column.
-- Reads: core.trial_issues.
ALTER TABLE core.trial_issues ALTER COLUMN trace_id TYPE VARCHAR USING (
    CASE WHEN typeof(trace_id) = 'BLOB' THEN lower(hex(trace_id)) ELSE trace_id::VARCHAR END
);
