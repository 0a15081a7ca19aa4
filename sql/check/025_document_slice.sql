-- A slice of the documents of a_documents, read for the shape pass (the generated JSON
-- Schema) while DuckDB checks the same slice's invariants (030): one slice in memory at a time.
-- Grain: one row per doc_id from $first_doc to $last_doc. Reads: a_documents.
SELECT doc_id, document
FROM a_documents
WHERE doc_id BETWEEN $first_doc AND $last_doc
ORDER BY doc_id
