-- To store schema version 3, step 2 of 2 (after sql/schema created the tables without keys):
-- move every row into them and drop the old tables.
-- Grain: copies rows. Reads: core.*_v2. (A migration script: several statements.)
INSERT INTO core.resources BY NAME SELECT * FROM core.resources_v2;
INSERT INTO core.scopes BY NAME SELECT * FROM core.scopes_v2;
INSERT INTO core.spans BY NAME SELECT * FROM core.spans_v2;
INSERT INTO core.events BY NAME SELECT * FROM core.events_v2;
INSERT INTO core.links BY NAME SELECT * FROM core.links_v2;
INSERT INTO core.large_values BY NAME SELECT * FROM core.large_values_v2;
DROP TABLE core.resources_v2;
DROP TABLE core.scopes_v2;
DROP TABLE core.spans_v2;
DROP TABLE core.events_v2;
DROP TABLE core.links_v2;
DROP TABLE core.large_values_v2;
