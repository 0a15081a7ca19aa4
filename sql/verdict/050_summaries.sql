-- The decision summaries of every key (CONTRACT §6.6): the run's summary head — everything
-- before `diagnostics`, built per run by the caller and registered as v_heads (`head`: the
-- summary's JSON without its last key, `next_cursor`: the cursor after the run's page when
-- another page exists) — joined to the key's diagnostics page (v_diagnostics), whose JSON is
-- the document's last key (`DecisionSummary` declares it last). A page is `complete` only
-- when it is a first page ($first) and no page follows.
-- Grain: one row per (run_id, chain_source, analyzer_version). Reads: v_diagnostics, v_heads.
CREATE OR REPLACE TEMP TABLE v_summaries AS
SELECT d.run_id, d.chain_source, d.analyzer_version, h.run_status, h.verdict, h.verdict_source,
       h.undecided_reason, h.measurement_unit, h.counted_total, h.counted_passed,
       h.counted_failed, h.counted_inconclusive, h.reasons,
       $first AND NOT d.more AS diagnostics_complete,
       d.items AS diagnostics_items,
       d.scanned AS scanned_iterations,
       left(h.head, length(h.head) - 1) || ',"diagnostics":{"items":[' || d.items_json
       || '],"complete":' || CAST($first AND NOT d.more AS VARCHAR)
       || CASE WHEN d.more THEN coalesce(',"nextCursor":' || core.js_json_string(h.next_cursor),
                                         '') ELSE '' END
       || ',"scannedIterations":' || d.scanned || '}}' AS document
FROM v_diagnostics d
JOIN v_heads h USING (run_id)
ORDER BY d.run_id, d.chain_source, d.analyzer_version;
