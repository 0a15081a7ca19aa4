"""One polars thread per staging worker: imported first by the derive step's fork server.

The staging workers are processes, one per core (`pipeline.derive.derive_workers`), beside
this process's reads and writes, so the cores are busy without polars' own threads. A pool
of one polars thread per core in each worker only adds threads that spin between the
adapter's ~350 small queries of a batch: over the same batches, one thread staged a batch
in ~8 % less CPU. The pool's size is fixed when polars is imported, so this module sets it
before the staging code (which imports polars) is preloaded; a size the user chose stays.
"""

from __future__ import annotations

import os

os.environ.setdefault("POLARS_MAX_THREADS", "1")
