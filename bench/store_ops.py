"""Operating a store (issue 20): delete, purge, vacuum and a follow round, against an import.

One synthetic NDJSON export (``size_mb``, at most 40 MB: the operations scale with the store,
not the export) of 20 runs is imported; each case then runs on its own copy of that store:
- ``import``              the export into a new store, derived (the floor)
- ``follow round``        the same bytes as a collector directory's live file, one round
- ``delete --dry-run``    what deleting one run would remove (temporary tables, rolled back)
- ``delete --run``        one run of 20 deleted, its runs re-materialized
- ``purge-content``       every content-gated value dropped
- ``vacuum``              the store copied compactly and swapped in (after the delete)
The ratio column is throughput over the export's megabytes against ``import``: above 1 is
faster than importing the same data.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bench.common import console, report, timed
from valuechain.pipeline.follow import Follower
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.pipeline.operations import delete, purge_content
from valuechain.store import Database
from valuechain.store.maintenance import vacuum_store
from valuechain.synth import SynthConfig, write_export

RUNS = 20


def run(size_mb: int = 100) -> None:
    size = min(size_mb, 40)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        export = folder / "otel" / "traces.json"
        export.parent.mkdir()
        cases = max(2, size // 2)  # about 25 kB per trial, 80 trials per case
        write_export(
            export, SynthConfig(runs=RUNS, cases=cases, models=2, reps=2, seed=3), ndjson=True
        )
        mb = export.stat().st_size / 2**20
        template = folder / "template.duckdb"
        with Database(template) as db:
            assert import_paths(db, [export]).ok
            spans = int(db.con.execute("SELECT count(*) FROM core.spans").fetchall()[0][0])
            run_id = db.con.execute("SELECT min(run_id) FROM core.trials").fetchall()[0][0]
        console.print(f"store: {spans:,} spans in {RUNS} runs from a {mb:.0f} MB export")
        copies = iter(range(100))

        def copy() -> Path:
            path = folder / f"s{next(copies)}.duckdb"
            shutil.copy(template, path)
            return path

        def imported() -> int:
            with Database(folder / f"new{next(copies)}.duckdb") as db:
                assert import_paths(db, [export]).ok
            return spans

        def followed() -> int:
            with Database(folder / f"new{next(copies)}.duckdb") as db:
                assert Follower(db, export.parent, ImportOptions()).round().sources
            return spans

        def deleting(dry_run: bool) -> int:
            with Database(copy()) as db:
                delete(db, run=run_id, dry_run=dry_run)
            return spans

        def purging() -> int:
            with Database(copy()) as db:
                purge_content(db)
            return spans

        deleted = copy()
        with Database(deleted) as db:
            delete(db, run=run_id)

        def vacuuming() -> int:
            vacuum_store(deleted, memory_limit="1GB")
            return spans

        timings = [
            timed("import", imported, mb),
            timed("follow round", followed, mb),
            timed("delete --dry-run", lambda: deleting(True), mb),
            timed("delete --run", lambda: deleting(False), mb),
            timed("purge-content", purging, mb),
            timed("vacuum", vacuuming, mb),
        ]
        report("operating a store", timings, "import")
