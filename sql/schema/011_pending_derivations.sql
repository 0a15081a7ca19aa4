-- The traces of sources imported but not derived yet: written with a source's ledger row (in
-- its last transaction) and deleted once their trials, chains and documents are (re)built. A
-- crash, Ctrl-C or a failing later source between the two leaves these rows, and the next
-- writing command derives them first; an import with --no-derive leaves them on purpose.
-- Grain: one row per (source_id, trace_id). Reads: nothing.
CREATE TABLE IF NOT EXISTS core.pending_derivations (
    source_id        INTEGER NOT NULL,
    trace_id         BLOB NOT NULL,
    analyzer_version INTEGER NOT NULL
);
