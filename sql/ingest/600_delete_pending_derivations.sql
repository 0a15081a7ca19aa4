-- The derivation of these sources is complete (trials, chains and documents written): they no
-- longer await it. Grain: deletes the rows of the listed sources.
-- Reads: core.pending_derivations.
DELETE FROM core.pending_derivations WHERE list_contains($source_ids, source_id);
