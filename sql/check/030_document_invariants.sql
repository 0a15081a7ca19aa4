-- The cross-field invariants of `EvalStageAnalyticsV1` (CONTRACT §5.1–§5.7) over the
-- documents of a_documents, set-based: the rules the model's validators check one object at a
-- time (contract/documents.py, contract/tallies.py), for every document at once. Run after
-- the documents passed the generated JSON Schema, so every field has its type and every
-- required key is present. Returns the documents that break a rule and the first rule each
-- breaks; the caller re-validates those with the model, which raises the named error.
-- Grain: one row per failing doc_id. Reads: a_documents, the doc_ids from $first_doc to
-- $last_doc (the parsed documents do not spill: checked in slices, memory stays bounded).
-- Params: $first_doc, $last_doc, $stages, $reasons, $categories, $details, $detail_classes, $phases,
--         $max_intent_slices, $max_model_slices, $max_host_slices.
WITH docs AS (
    SELECT doc_id, json_transform(document, '{
        "includedTrials": "BIGINT", "totalTrials": "BIGINT", "sourceIterationCount": "BIGINT",
        "sourceStageAnalyzerVersions": ["BIGINT"], "sourceMeasurementsSchemaVersions": ["BIGINT"],
        "excludedTrials": {"lifecycle": "BIGINT", "integrity": "BIGINT", "version": "BIGINT",
            "notApplicable": "BIGINT", "reachUnknown": "BIGINT", "notMeasured": "BIGINT"},
        "excludedTrialDetail": "MAP(VARCHAR, BIGINT)",
        "slices": [{
            "slice": {"dimension": "VARCHAR"},
            "includedTrials": "BIGINT",
            "excludedTrials": {"lifecycle": "BIGINT", "integrity": "BIGINT", "version": "BIGINT",
                "notApplicable": "BIGINT", "reachUnknown": "BIGINT", "notMeasured": "BIGINT"},
            "failureCategories": [{"category": "VARCHAR", "count": "BIGINT"}],
            "stages": [{
                "stage": "VARCHAR", "applicable": "BIGINT", "reached": "BIGINT",
                "notReached": "BIGINT", "reachUnknown": "BIGINT", "measured": "BIGINT",
                "passed": "BIGINT", "failed": "BIGINT", "notMeasured": "BIGINT",
                "notApplicable": "BIGINT",
                "excluded": {"lifecycle": "BIGINT", "integrity": "BIGINT", "version": "BIGINT",
                    "notApplicable": "BIGINT", "reachUnknown": "BIGINT", "notMeasured": "BIGINT"},
                "reasons": [{"reason": "VARCHAR"}],
                "latency": {"sampleCount": "BIGINT", "totalMs": "DOUBLE", "minMs": "DOUBLE",
                    "maxMs": "DOUBLE"}
            }]
        }],
        "setup": [{
            "phase": "VARCHAR", "uniqueAttempts": "BIGINT", "failedAttempts": "BIGINT",
            "serverAttributedFailures": "BIGINT",
            "latency": {"sampleCount": "BIGINT", "totalMs": "DOUBLE", "minMs": "DOUBLE",
                "maxMs": "DOUBLE"}
        }]
    }') AS d
    FROM a_documents
    WHERE doc_id BETWEEN $first_doc AND $last_doc
), slices AS (
    SELECT doc_id, d.includedTrials AS doc_included, unnest(d.slices) AS s FROM docs
), tallies AS (
    SELECT doc_id, s.includedTrials AS slice_included, unnest(s.stages) AS t FROM slices
), setups AS (
    SELECT doc_id, unnest(d.setup) AS u FROM docs
), broken AS (
    SELECT doc_id,
        CASE
            WHEN t.passed + t.failed <> t.measured THEN 'measured is not passed + failed'
            WHEN t.measured + t.notMeasured <> t.reached THEN 'reached is not measured + notMeasured'
            WHEN t.reached + t.notReached + t.reachUnknown <> t.applicable
                THEN 'applicable is not reached + notReached + reachUnknown'
            WHEN t.latency.sampleCount > t.reached THEN 'latency sampleCount exceeds reached'
            WHEN t.excluded.lifecycle IS NOT NULL OR t.excluded.integrity IS NOT NULL
                OR t.excluded.version IS NOT NULL
                OR coalesce(t.excluded.notApplicable, 0) <> t.notApplicable
                OR coalesce(t.excluded.reachUnknown, 0) <> t.reachUnknown
                OR coalesce(t.excluded.notMeasured, 0) <> t.notMeasured
                THEN 'excluded must count exactly notApplicable, reachUnknown and notMeasured'
            WHEN list_transform(t.reasons, lambda r: list_position($reasons, r.reason))
                 <> list_sort(list_distinct(list_transform(t.reasons, lambda r: list_position($reasons, r.reason))))
                THEN 'reasons must follow the vocabulary order without repeats'
            WHEN t.latency.minMs > t.latency.maxMs
                OR t.latency.totalMs < t.latency.minMs * t.latency.sampleCount
                OR t.latency.totalMs > t.latency.maxMs * t.latency.sampleCount
                THEN 'stage latency bounds describe another sample set'
            WHEN t.applicable + t.notApplicable > slice_included
                THEN 'a stage counts more trials than were included'
        END AS problem
    FROM tallies
    UNION ALL
    SELECT doc_id,
        CASE
            WHEN list_transform(s.stages, lambda x: x.stage) <> $stages
                THEN 'stages must be the six tallies in stage order'
            WHEN s.excludedTrials.notApplicable IS NOT NULL OR s.excludedTrials.reachUnknown IS NOT NULL
                OR s.excludedTrials.notMeasured IS NOT NULL
                THEN 'a slice excludes trials only as lifecycle, integrity or version'
            WHEN list_transform(s.failureCategories, lambda c: list_position($categories, c.category))
                 <> list_sort(list_distinct(list_transform(s.failureCategories, lambda c: list_position($categories, c.category))))
                THEN 'categories must follow the vocabulary order without repeats'
            WHEN coalesce(list_sum(list_transform(s.failureCategories, lambda c: c.count)), 0) > s.includedTrials
                THEN 'failure categories count more trials than were included'
        END
    FROM slices
    UNION ALL
    SELECT doc_id,
        CASE
            WHEN u.failedAttempts > u.uniqueAttempts THEN 'failedAttempts exceeds uniqueAttempts'
            WHEN u.serverAttributedFailures > u.failedAttempts
                THEN 'serverAttributedFailures exceeds failedAttempts'
            WHEN u.latency.sampleCount > u.uniqueAttempts
                THEN 'setup latency sampleCount exceeds uniqueAttempts'
            WHEN u.latency.minMs > u.latency.maxMs
                OR u.latency.totalMs < u.latency.minMs * u.latency.sampleCount
                OR u.latency.totalMs > u.latency.maxMs * u.latency.sampleCount
                THEN 'setup latency bounds describe another sample set'
        END
    FROM setups
    UNION ALL
    SELECT doc_id,
        CASE
            WHEN len(list_filter(d.slices, lambda s: s.slice.dimension = 'overall')) <> 1
                OR d.slices[1].slice.dimension <> 'overall'
                THEN 'expected exactly one ''overall'' slice, first'
            WHEN d.slices[1].includedTrials <> d.includedTrials
                THEN 'the overall slice''s includedTrials differs from the document''s'
            WHEN d.slices[1].excludedTrials IS DISTINCT FROM d.excludedTrials
                THEN 'the overall slice''s excludedTrials differs from the document''s'
            WHEN d.includedTrials > d.totalTrials THEN 'includedTrials exceeds totalTrials'
            WHEN d.sourceIterationCount <> d.totalTrials
                THEN 'sourceIterationCount must equal totalTrials (trials read)'
            WHEN d.excludedTrials.notApplicable IS NOT NULL OR d.excludedTrials.reachUnknown IS NOT NULL
                OR d.excludedTrials.notMeasured IS NOT NULL
                THEN 'a run excludes trials only as lifecycle, integrity or version'
            WHEN d.includedTrials + coalesce(d.excludedTrials.lifecycle, 0)
                 + coalesce(d.excludedTrials.integrity, 0) + coalesce(d.excludedTrials.version, 0)
                 <> d.totalTrials
                THEN 'includedTrials + excludedTrials must equal totalTrials'
            -- per class, a list expression rather than EXISTS over a VALUES list: that
            -- correlated subquery made DuckDB group the documents by their whole parsed value
            WHEN list_bool_or(list_transform(['lifecycle', 'integrity', 'version'], lambda cls:
                     coalesce(list_sum(list_transform(
                         list_filter(map_entries(d.excludedTrialDetail),
                                     lambda e: $detail_classes[list_position($details, e.key)] = cls),
                         lambda e: e.value)), 0)
                     <> coalesce(CASE cls WHEN 'lifecycle' THEN d.excludedTrials.lifecycle
                                 WHEN 'integrity' THEN d.excludedTrials.integrity
                                 ELSE d.excludedTrials.version END, 0)))
                THEN 'excludedTrialDetail does not add up to excludedTrials'
            WHEN list_transform(d.setup, lambda u: list_position($phases, u.phase))
                 <> list_sort(list_distinct(list_transform(d.setup, lambda u: list_position($phases, u.phase))))
                THEN 'setup phases must be unique, in phase order'
            WHEN list_transform(d.slices, lambda s: list_position(['overall', 'intent', 'model', 'host'], s.slice.dimension))
                 <> list_sort(list_transform(d.slices, lambda s: list_position(['overall', 'intent', 'model', 'host'], s.slice.dimension)))
                THEN 'slices must be emitted overall, intent, model, host'
            WHEN len(list_filter(d.slices, lambda s: s.slice.dimension = 'intent')) > $max_intent_slices
                OR len(list_filter(d.slices, lambda s: s.slice.dimension = 'model')) > $max_model_slices
                OR len(list_filter(d.slices, lambda s: s.slice.dimension = 'host')) > $max_host_slices
                THEN 'more slices than the cap of their dimension'
            WHEN len(d.sourceStageAnalyzerVersions) < 2
                OR d.sourceStageAnalyzerVersions <> list_sort(list_distinct(d.sourceStageAnalyzerVersions))
                OR len(d.sourceMeasurementsSchemaVersions) < 2
                OR d.sourceMeasurementsSchemaVersions <> list_sort(list_distinct(d.sourceMeasurementsSchemaVersions))
                THEN 'source versions must list at least two distinct versions in ascending order'
        END
    FROM docs
)
SELECT doc_id, min(problem) AS problem
FROM broken
WHERE problem IS NOT NULL
GROUP BY doc_id
ORDER BY doc_id;
