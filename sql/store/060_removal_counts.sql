-- Delete, step 7: what the deletion removes (what --dry-run reports), before anything goes.
-- Grain: one row. Reads: st_*, core.*.
SELECT
    (SELECT count(*) FROM st_sources WHERE emptied)                          AS sources,
    (SELECT count(*) FROM st_sources WHERE NOT emptied)                      AS sources_reduced,
    (SELECT count(*) FROM st_spans)                                          AS spans,
    (SELECT count(*) FROM st_traces WHERE NOT remaining)                     AS traces,
    (SELECT count(*) FROM st_traces WHERE remaining)                         AS traces_rederived,
    (SELECT count(*) FROM core.trials
     WHERE trace_id IN (SELECT trace_id FROM st_traces WHERE NOT remaining)) AS trials,
    (SELECT count(*) FROM st_runs)                                           AS runs,
    (SELECT count(*) FROM core.analytics_documents
     WHERE run_id IN (SELECT run_id FROM st_runs))                           AS documents,
    (SELECT count(*) FROM st_owners WHERE owner_type = 'event')              AS events,
    (SELECT count(*) FROM st_owners WHERE owner_type = 'link')               AS links,
    (SELECT count(*) FROM st_owners WHERE owner_type = 'resource')           AS resources,
    (SELECT count(*) FROM st_owners WHERE owner_type = 'scope')              AS scopes,
    (SELECT count(*) FROM core.attributes a
     SEMI JOIN st_owners o ON o.owner_type = a.owner_type AND o.owner_row = a.owner_row)
                                                                             AS attributes,
    (SELECT count(*) FROM st_large_values)                                   AS large_values,
    (SELECT count(*) FROM core.issues
     WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied)
        OR span_row IN (SELECT span_row FROM st_spans))                      AS issues,
    (SELECT count(*) FROM core.quarantine
     WHERE source_id IN (SELECT source_id FROM st_sources WHERE emptied))    AS quarantined;
