-- The diagnostics of every wanted page at once (CONTRACT §6.7), as JSON text in the canonical
-- form `Diagnostics.model_dump_json(by_alias=True)` writes (keys in the model's order, absent
-- keys omitted, strings as core.js_json_string escapes them). One page per run (v_pages: its
-- first $limit trials in page order, one more row saying whether another page exists), seen
-- under the chains of each key of v_keys: derived chains at the key's version, the producer's
-- newest chain when the key is (`producer`, $reader_version).
--   items     the page's trials whose result is not `passed`, each with its chain —
--             `verified` when the stored rows pass the §2.1 persisted-shape check (six rows in
--             stage order, known states and reasons, typed evidence references, a first failed
--             stage that is the first failed row, a known category), `unverified` when rows
--             were offered but do not, else `absent`; a version above $reader_version is
--             flagged, never rejected — its expected and observed tool names, the locator of
--             the first failed stage's own evidence, and the next owner's action (§1.4).
-- The same rules, written once in Python, are contract/verdict_diagnostics.py (the reference:
-- tests/materialize/test_verdict_sql.py requires both to agree byte for byte).
-- Grain: one row per (run_id, chain_source, analyzer_version) of v_keys.
-- Reads: v_keys, v_pages, v_page_chains, v_page_details.
CREATE OR REPLACE TEMP TABLE v_diagnostics AS
WITH chosen AS (
    SELECT k.run_id, k.chain_source, k.analyzer_version AS key_version, c.trial_id,
           c.analyzer_version AS version, c.stage_rows, c.first_failed_stage, c.failure_category
    FROM v_keys k
    JOIN v_page_chains c ON c.run_id = k.run_id AND c.source = k.chain_source
    WHERE CASE WHEN k.chain_source = 'producer' THEN k.analyzer_version = $reader_version
               ELSE c.analyzer_version = k.analyzer_version END
    QUALIFY row_number() OVER (
        PARTITION BY k.run_id, k.chain_source, k.analyzer_version, c.trial_id
        ORDER BY c.analyzer_version DESC) = 1
), chains AS (
    -- per chain, over its rows in stage order (a list, no regrouping): the first failed row's
    -- stage and own evidence (even none), the §2.1 check of every row, and the stages' JSON
    SELECT run_id, chain_source, key_version, trial_id, version, first_failed_stage,
           failure_category,
           stage_rows[failed_at].stage AS failed,
           evidences[failed_at] AS failed_evidence,
           len(stage_rows) = 6 AND list_bool_and(list_transform(stage_rows, lambda r, i:
               -- §2.1 per row: the stage of its position, a known state, a known reason when
               -- present, evidence (when present) an object whose references, when not null,
               -- are lists of strings (span ids, predicate reasons) or numbers (prompt indexes)
               r.stage IS NOT DISTINCT FROM $stages[i]
               AND list_contains($states, r.state)
               AND (r.reason IS NULL OR list_contains($reasons, r.reason))
               AND (r.evidence IS NULL OR (
                   json_type(evidences[i]) = 'OBJECT'
                   AND (coalesce(json_type(evidences[i], '$.spanIds'), 'NULL') = 'NULL'
                        OR (json_type(evidences[i], '$.spanIds') = 'ARRAY'
                            AND len(list_filter(json_extract(evidences[i], '$.spanIds[*]'),
                                                lambda x: json_type(x) <> 'VARCHAR')) = 0))
                   AND (coalesce(json_type(evidences[i], '$.promptIndexes'), 'NULL') = 'NULL'
                        OR (json_type(evidences[i], '$.promptIndexes') = 'ARRAY'
                            AND len(list_filter(json_extract(evidences[i], '$.promptIndexes[*]'),
                                                lambda x: json_type(x) NOT IN
                                                    ('BIGINT', 'UBIGINT', 'DOUBLE', 'HUGEINT')))
                                = 0))
                   AND (coalesce(json_type(evidences[i], '$.predicateReasons'), 'NULL') = 'NULL'
                        OR (json_type(evidences[i], '$.predicateReasons') = 'ARRAY'
                            AND len(list_filter(
                                    json_extract(evidences[i], '$.predicateReasons[*]'),
                                    lambda x: json_type(x) <> 'VARCHAR')) = 0))))))
               AS rows_ok,
           list_bool_or(list_transform(stage_rows, lambda r: r.state = 'passed'))
           AND list_bool_and(list_transform(stage_rows,
                                            lambda r: r.state IN ('passed', 'notApplicable')))
               AS all_passed,
           array_to_string(list_transform(stage_rows, lambda r:
               '{"stage":"' || r.stage || '","state":"' || r.state || '"'
               || coalesce(',"reason":"' || r.reason || '"', '') || '}'), ',') AS stages_json
    FROM (SELECT *, list_position(list_transform(stage_rows, lambda r: r.state), 'failed')
                        AS failed_at,
                 list_transform(stage_rows, lambda r: CASE WHEN json_valid(r.evidence)
                                                           THEN CAST(r.evidence AS JSON) END)
                     AS evidences
          FROM chosen)
), verdicts AS (
    SELECT *,
           rows_ok AND version >= 0
           AND first_failed_stage IS NOT DISTINCT FROM failed
           AND (failure_category IS NULL OR list_contains($categories, failure_category))
               AS verified,
           CASE WHEN version > $reader_version
                THEN ',"analyzerVersionAhead":{"reported":' || version || ',"known":'
                     || $reader_version || '}' ELSE '' END AS ahead
    FROM chains
), chain_json AS (
    SELECT run_id, chain_source, key_version, trial_id, verified, version, failed,
           failed_evidence, failure_category, all_passed,
           CASE WHEN verified THEN
                    '{"status":"verified","stages":[' || stages_json || ']'
                    || coalesce(',"firstFailedStage":"' || failed || '"', '')
                    || coalesce(',"failureCategory":"' || failure_category || '"', '')
                    || ',"analyzerVersion":' || version || ahead || '}'
                WHEN version >= 0 THEN
                    '{"status":"unverified","analyzerVersion":' || version || ahead || '}'
                ELSE '{"status":"unverified"}' END AS json
    FROM verdicts
), located AS (
    SELECT *,
           list_filter(coalesce(json_extract_string(failed_evidence, '$.spanIds[*]'), []),
                       lambda s, n: s <> '' AND list_position(
                           json_extract_string(failed_evidence, '$.spanIds[*]'), s) = n)
               AS span_ids,
           list_filter(coalesce(json_extract_string(failed_evidence, '$.predicateReasons[*]'), []),
                       lambda s, n: s <> '' AND list_position(
                           json_extract_string(failed_evidence, '$.predicateReasons[*]'), s) = n)
               AS reasons,
           list_transform(coalesce(json_extract(failed_evidence, '$.promptIndexes[*]'), []),
                          lambda x: CAST(x AS DOUBLE)) AS prompts
    FROM chain_json
    WHERE verified AND failed IS NOT NULL
), locators AS (
    SELECT run_id, chain_source, key_version, trial_id,
           concat(',"stage":"', failed, '"',
                  CASE WHEN len(span_ids) > 0 THEN concat(',"spanIds":[',
                       array_to_string(q[1:len(span_ids)], ','), ']') ELSE '' END,
                  CASE WHEN len(kept) > 0 THEN concat(',"promptIndexes":[',
                       array_to_string(list_transform(kept, lambda p: CAST(CAST(p AS HUGEINT)
                                                                      AS VARCHAR)), ','),
                       ']') ELSE '' END,
                  CASE WHEN len(reasons) > 0 THEN concat(',"reasons":[',
                       array_to_string(q[len(span_ids) + 1:], ','), ']') ELSE '' END) AS json
    FROM (
        SELECT *,
               list_filter(prompts, lambda p, n: list_position(prompts, p) = n
                                                 AND p = trunc(p) AND p >= 0) AS kept,
               -- one expansion of the macro for both lists: the span ids, then the reasons
               list_transform(list_concat(span_ids, reasons), lambda s: core.js_json_string(s))
                   AS q
        FROM located
    )
), details AS (
    SELECT run_id, trial_id, error,
           list_filter(named, lambda s, n: list_position(named, s) = n) AS expected,
           list_filter(observed, lambda s, n: s <> '' AND list_position(observed, s) = n)
               AS observed
    FROM (
        SELECT run_id, trial_id, error, tool_names AS observed,
               list_filter(list_transform(
                   CASE WHEN json_valid(expect_tool_calls)
                             AND json_type(CAST(expect_tool_calls AS JSON)) = 'ARRAY'
                        THEN json_extract(CAST(expect_tool_calls AS JSON), '$[*]') END,
                   lambda c: CASE WHEN json_type(c) <> 'OBJECT' THEN NULL
                       WHEN json_type(c, '$.toolName') = 'VARCHAR'
                            AND json_extract_string(c, '$.toolName') <> ''
                           THEN json_extract_string(c, '$.toolName')
                       WHEN json_type(c, '$.tool') = 'VARCHAR'
                            AND json_extract_string(c, '$.tool') <> ''
                           THEN json_extract_string(c, '$.tool')
                       WHEN json_type(c, '$.name') = 'VARCHAR'
                            AND json_extract_string(c, '$.name') <> ''
                           THEN json_extract_string(c, '$.name') END),
                   lambda s: s IS NOT NULL) AS named
        FROM v_page_details
    )
), items AS (
    SELECT run_id, chain_source, analyzer_version, position,
           concat(
               '{"iterationId":', q[1],
               ',"iterationNumber":', iteration_number,
               CASE WHEN regexp_full_match(case_id, '[A-Za-z0-9_-]{1,128}\n?')
                    THEN ',"caseId":' || q[2] ELSE '' END,
               CASE WHEN case_key <> '' THEN ',"testCaseId":' || q[3] ELSE '' END,
               CASE WHEN case_title <> '' THEN ',"title":' || q[4] ELSE '' END,
               ',"status":', q[5],
               CASE WHEN trial_result IN ('passed', 'failed')
                    THEN concat(',"result":"', trial_result, '"') ELSE '' END,
               ',"chain":', coalesce(chain_json, '{"status":"absent"}'),
               CASE WHEN len(expected) > 0 THEN concat(',"expected":{"toolNames":[',
                    array_to_string(q[9:8 + len(expected)], ','), ']}') ELSE '' END,
               CASE WHEN len(observed) > 0 OR error <> '' THEN concat(',"observed":{',
                    concat_ws(',',
                        CASE WHEN len(observed) > 0 THEN concat('"toolNames":[',
                             array_to_string(q[9 + len(expected):], ','), ']') END,
                        CASE WHEN error <> '' THEN '"failure":' || q[6] END),
                    '}') ELSE '' END,
               ',"evidence":{"runId":', q[7],
               ',"iterationId":', q[1],
               ',"tracePath":"/projects/', segments[1], '/eval-runs/', segments[2],
               '/iterations/', segments[3], '/trace"', coalesce(locator_json, ''), '}',
               ',"nextAction":', q[8],
               '}') AS json
    FROM (
        -- every string of the item escaped by one expansion of the macro: the scalars at 1–8,
        -- then the expected tool names, then the observed ones
        SELECT *,
               list_transform(list_concat(
                   [trial_id, case_id, case_key, case_title,
                    coalesce(nullif(status, ''), 'unknown'), error, run_id, next_action],
                   expected, observed), lambda s: core.js_json_string(s)) AS q
        FROM (
            SELECT p.*, c.json AS chain_json, l.json AS locator_json, d.error,
                   coalesce(d.expected, []) AS expected, coalesce(d.observed, []) AS observed,
                   CASE
                       WHEN c.verified AND c.failure_category IS NOT NULL
                           THEN $next_actions[list_position($categories, c.failure_category)]
                       WHEN c.verified AND p.trial_result = 'failed' AND c.all_passed
                            AND c.version < $evidence_triggered_version THEN $stale_action
                       WHEN c.verified AND p.trial_result = 'failed' AND c.all_passed
                           THEN $disagreement_action
                       ELSE $fallback_action END AS next_action
            FROM (
                -- encodeURIComponent of the trace path's segments: an id of the plain alphabet
                -- as it is, any other percent-encoded (url_encode, minus the five marks JS
                -- leaves alone)
                SELECT k.run_id, k.chain_source, k.analyzer_version, p.trial_id,
                       p.iteration_number, p.case_id, p.case_key, p.case_title, p.status,
                       p.trial_result, p.position,
                       list_transform([k.project_id, p.run_id, p.trial_id], lambda s: CASE
                           WHEN regexp_full_match(s, '[A-Za-z0-9_.!~*''()-]*') THEN s
                           ELSE replace(replace(replace(replace(replace(url_encode(s),
                                    '%21', '!'), '%2A', '*'), '%27', ''''), '%28', '('),
                                    '%29', ')')
                           END) AS segments
                FROM v_keys k
                JOIN v_pages p ON p.run_id = k.run_id AND p.position <= $limit
                WHERE p.trial_result IS DISTINCT FROM 'passed'
            ) p
            LEFT JOIN chain_json c ON c.run_id = p.run_id AND c.chain_source = p.chain_source
                 AND c.key_version = p.analyzer_version AND c.trial_id = p.trial_id
            LEFT JOIN locators l ON l.run_id = p.run_id AND l.chain_source = p.chain_source
                 AND l.key_version = p.analyzer_version AND l.trial_id = p.trial_id
            LEFT JOIN details d ON d.run_id = p.run_id AND d.trial_id = p.trial_id
        )
    )
), pages AS (
    SELECT run_id,
           count(*) FILTER (position <= $limit) AS scanned,
           count(*) > $limit AS more,
           arg_max(iteration_number, position) FILTER (position <= $limit) AS last_number,
           arg_max(trial_id, position) FILTER (position <= $limit) AS last_trial_id
    FROM v_pages
    GROUP BY run_id
)
SELECT k.run_id, k.chain_source, k.analyzer_version,
       coalesce(i.items, 0) AS items, coalesce(i.json, '') AS items_json,
       coalesce(g.scanned, 0) AS scanned, coalesce(g.more, false) AS more,
       g.last_number, g.last_trial_id
FROM v_keys k
LEFT JOIN (
    SELECT run_id, chain_source, analyzer_version, count(*) AS items,
           string_agg(json, ',' ORDER BY position) AS json
    FROM items
    GROUP BY run_id, chain_source, analyzer_version
) i USING (run_id, chain_source, analyzer_version)
LEFT JOIN pages g USING (run_id);
