-- The eval runs coverage reads, each with its suite and whether it is the suite's latest run
-- (completion time — `mcp.app.run.completed_time`, else the last trial's end — then run
-- number, then run id). Runs whose trials carry no mcp.app contract are not suites: absent.
-- Grain: one row per run_id. Reads: core.trials.
CREATE OR REPLACE VIEW core.coverage_runs AS
SELECT
    run_id,
    suite_id,
    trials,
    row_number() OVER (
        PARTITION BY suite_id
        ORDER BY completed_at DESC NULLS LAST, run_number DESC NULLS LAST, run_id DESC
    ) = 1 AS latest
FROM (
    SELECT
        run_id,
        min(suite_id) AS suite_id,
        count(*) AS trials,
        coalesce(max(run_completed_at), max(ended_at)) AS completed_at,
        max(run_number) AS run_number
    FROM core.trials
    WHERE contract
    GROUP BY run_id
);
