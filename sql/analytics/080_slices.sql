-- Every slice of every document, marginals only (CONTRACT §5.2): `overall`; the intent (NULL
-- = unlabelled, a real slice); the model when provider and model are both known; the host
-- when its key is known — created by excluded trials too. When a dimension has more distinct
-- values than its cap, slices are ranked by included trials (desc), then sort key, and the
-- first `cap` are `retained`; `slice_index` then orders the retained slices canonically:
-- overall, intent, model, host, each by sort key — UTF-16 code units (Q8), unlabelled last
-- ("\uFFFF"), a model's key being `JSON.stringify([provider, model])`. A host slice takes its
-- name and engine from the first trial carrying its key, by (iteration number, trial id) (Q7).
-- Failure categories: included trials only, vocabulary order, zero counts omitted.
-- Grain: one row per (document, slice). Reads: a_cells, a_docs, a_trials.
CREATE OR REPLACE TEMP TABLE a_slices AS
WITH members AS (
    -- `overall` exists eagerly, even for a document without trials (§5.2).
    SELECT doc_id, 'overall' AS slice_dimension,
           CAST(NULL AS VARCHAR) AS intent, CAST(NULL AS VARCHAR) AS provider,
           CAST(NULL AS VARCHAR) AS model, CAST(NULL AS VARCHAR) AS host_key,
           CAST(NULL AS VARCHAR) AS exclusion_class, CAST(NULL AS VARCHAR) AS failure_category,
           CAST(0 AS BIGINT) AS trials
    FROM a_docs
    UNION ALL
    SELECT doc_id, 'overall', NULL, NULL, NULL, NULL, exclusion_class, failure_category, trials
    FROM a_cells
    UNION ALL
    SELECT doc_id, 'intent', intent, NULL, NULL, NULL, exclusion_class, failure_category, trials
    FROM a_cells
    UNION ALL
    SELECT doc_id, 'model', NULL, provider, model, NULL, exclusion_class, failure_category, trials
    FROM a_cells
    WHERE provider IS NOT NULL AND model IS NOT NULL
    UNION ALL
    SELECT doc_id, 'host', NULL, NULL, NULL, host_key, exclusion_class, failure_category, trials
    FROM a_cells
    WHERE host_key IS NOT NULL
), per_class AS (
    SELECT doc_id, slice_dimension, intent, provider, model, host_key, exclusion_class,
           failure_category, CAST(sum(trials) AS BIGINT) AS trials
    FROM members
    GROUP BY ALL
), per_slice AS (
    SELECT
        doc_id, slice_dimension, intent, provider, model, host_key,
        CAST(coalesce(sum(trials) FILTER (exclusion_class IS NULL), 0) AS BIGINT)
            AS included_trials,
        CAST(coalesce(sum(trials) FILTER (exclusion_class = 'lifecycle'), 0) AS BIGINT)
            AS excluded_lifecycle,
        CAST(coalesce(sum(trials) FILTER (exclusion_class = 'integrity'), 0) AS BIGINT)
            AS excluded_integrity,
        CAST(coalesce(sum(trials) FILTER (exclusion_class = 'version'), 0) AS BIGINT)
            AS excluded_version,
        coalesce(
            list({'category': failure_category, 'count': trials}
                 ORDER BY list_position($categories, failure_category))
                FILTER (exclusion_class IS NULL
                        AND list_position($categories, failure_category) IS NOT NULL),
            []
        ) AS failure_categories
    FROM per_class
    GROUP BY doc_id, slice_dimension, intent, provider, model, host_key
), keyed AS (
    SELECT
        *,
        list_position($dimensions, slice_dimension) AS dimension_order,
        CASE slice_dimension
            WHEN 'intent' THEN coalesce(units, [65535])
            WHEN 'model' THEN units
            WHEN 'host' THEN units
            ELSE CAST([] AS INTEGER[])
        END AS sort_key,
        CASE slice_dimension
            WHEN 'intent' THEN $max_intent_slices
            WHEN 'model' THEN $max_model_slices
            WHEN 'host' THEN $max_host_slices
            ELSE 1
        END AS cap
    FROM (
        -- each macro expanded once (the plan is most of a small run's cost): the units of
        -- the dimension's text, the model's from its provider and model as a JSON pair
        SELECT *, core.utf16_units(CASE slice_dimension
                      WHEN 'intent' THEN intent
                      WHEN 'model' THEN '[' || q[1] || ',' || q[2] || ']'
                      WHEN 'host' THEN host_key END) AS units
        FROM (SELECT *, list_transform([provider, model], lambda v: core.js_json_string(v)) AS q
              FROM per_slice)
    )
), ranked AS (
    SELECT
        *,
        row_number() OVER (
            PARTITION BY doc_id, slice_dimension
            ORDER BY included_trials DESC, sort_key, intent IS NULL
        ) AS rank_in_dimension,
        count(*) OVER (PARTITION BY doc_id, slice_dimension) AS distinct_values
    FROM keyed
), hosts AS (
    SELECT
        run_id,
        host_key,
        arg_min(
            {'host_name': host_name, 'execution_engine': execution_engine},
            {'unnumbered': iteration_number IS NULL, 'iteration': coalesce(iteration_number, 0),
             'trial_id': trial_id, 'trace_id': trace_id}
        ) AS first_seen
    FROM a_trials
    WHERE host_key IS NOT NULL
    GROUP BY run_id, host_key
)
SELECT
    r.doc_id, r.slice_dimension, r.intent, r.provider, r.model, r.host_key,
    h.first_seen.host_name                            AS host_name,
    h.first_seen.execution_engine                     AS execution_engine,
    r.included_trials, r.excluded_lifecycle, r.excluded_integrity, r.excluded_version,
    r.failure_categories,
    r.sort_key,
    r.dimension_order,
    r.distinct_values,
    r.rank_in_dimension <= r.cap                      AS retained,
    CAST(row_number() OVER (
        PARTITION BY r.doc_id
        ORDER BY r.rank_in_dimension > r.cap, r.dimension_order, r.sort_key, r.intent IS NULL
    ) - 1 AS INTEGER)                                 AS slice_index
FROM ranked r
JOIN a_docs d USING (doc_id)
LEFT JOIN hosts h
    ON r.slice_dimension = 'host' AND h.run_id = d.run_id AND h.host_key = r.host_key;
