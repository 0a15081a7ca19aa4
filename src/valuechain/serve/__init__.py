"""``valuechain serve``: an OTLP/HTTP receiver and a local backend for MCPJam's SDK reporter.

The data flow: a request → checked and decoded (`app`, `otlp`, `mcpjam`) → durable in the
spool (`spool`), then answered → imported in batches, derived and materialized by the
importer thread (`importer`), which holds the store only while it commits a batch. Run by
uvicorn; Ctrl-C or SIGTERM stop it cleanly: no new request is taken, those in flight are
answered, the spool is imported once more and the store closed (`server`).
"""
