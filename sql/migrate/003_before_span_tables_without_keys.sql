-- To store schema version 3, step 1 of 2 (before sql/schema runs): the span tables lose their
-- PRIMARY KEYs. Their row ids are generated contiguously by the import, so the keys only
-- checked our own counter, while DuckDB serialized their ART indexes at every checkpoint — a
-- cost growing with the store that halved the speed of large imports. The old tables step
-- aside; sql/schema then creates the new ones and step 2 moves the rows.
-- Grain: renames tables. Reads: nothing. (A migration script: several statements.)
ALTER TABLE core.resources RENAME TO resources_v2;
ALTER TABLE core.scopes RENAME TO scopes_v2;
ALTER TABLE core.spans RENAME TO spans_v2;
ALTER TABLE core.events RENAME TO events_v2;
ALTER TABLE core.links RENAME TO links_v2;
ALTER TABLE core.large_values RENAME TO large_values_v2;
