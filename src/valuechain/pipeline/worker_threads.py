"""One polars thread per staging worker: imported first by the derive step's fork server.

The staging workers are processes, one per core (`pipeline.derive.derive_workers`), beside
this process's reads and writes, so the cores are busy without polars' own threads: a pool
of one polars thread per core in each worker mostly adds threads that spin between the
adapter's ~350 small queries of a batch. Deriving a 100k-trial store, the workers used
~3 % less CPU with one thread (28.0 vs 28.9 CPU s, two runs each, in turn). The pool's size
is fixed when polars is imported, so this module sets it before the staging code (which
imports polars) is preloaded; a size the user chose stays. Every pool of this process that
uses the fork server gets it (the import's decode processes too: processes for the same
reason).
"""

from __future__ import annotations

import os

os.environ.setdefault("POLARS_MAX_THREADS", "1")
