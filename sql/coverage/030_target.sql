-- Whether the store holds the eval run $run_id / any eval run of suite $suite_id (for a clear
-- error before coverage reads nothing). Grain: one row. Reads: core.trials.
SELECT
    bool_or(run_id = $run_id) AS run_found,
    bool_or(suite_id = $suite_id) AS suite_found
FROM core.trials
WHERE contract;
