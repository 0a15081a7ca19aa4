-- Release the resource attributes copied for a derive (000_resource_attributes.sql).
-- Grain: none (drops a temporary table). Reads: nothing.
DROP TABLE IF EXISTS temp.evidence_resource_attributes
