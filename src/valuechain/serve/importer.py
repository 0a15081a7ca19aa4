"""From the spool into the store: batches of acknowledged requests, each one source.

A cycle opens the store (waiting while another command holds it), imports what the spool
holds and derives what that touched (while requests keep arriving, at most every
``DERIVE_LAG`` seconds: a derive rebuilds whole runs), then closes the store again — so
between cycles every other command (``runs``, ``funnel``, ``sql``, ``report`` …) can open
it, with ``--wait`` when a cycle is under way. Requests are never imported one by one: a
source's transaction costs tens of milliseconds, an OTLP exporter sends a request a few
seconds apart per process.

- OTLP requests: the protobuf bodies of a cycle become one length-prefixed source (the
  collector's ``proto`` file format), the JSON bodies one NDJSON source (`spool.batched`),
  at most ``BATCH_BYTES`` a source: one decode batch, decoded in this process, however long
  the spool has grown (after a restart, say).
- MCPJam SDK reports: each its own source, as ``import`` reads the same file; a streaming
  run: its folder's bodies joined, as ``import`` joins the same bodies saved one a file
  (`serve.mcpjam`). While the run is open (no ``finalize`` yet) that source is imported
  again whenever the run gained bodies — a ``provisional`` run, as the translator reads a
  start without finalize — each replacing the one before (`pipeline.operations.delete`,
  logged in ``store_operations``): its bytes are a prefix of the new source's, and every
  body stays in the spool until the finalized run is in, so nothing is lost by it.

The sha256 of every body goes into ``core.served_requests`` in the transaction that commits
its source; a body already recorded is dropped from the spool unread. So a crash anywhere —
before the commit, after it, before the spool files are removed — imports every
acknowledged body exactly once.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson

from valuechain.ingest.bytes.framing import DEFAULT_BATCH_BYTES
from valuechain.pipeline.decode_pool import DecodePool
from valuechain.pipeline.derive import DeriveSummary, derive_pending
from valuechain.pipeline.imports import ImportOptions, SourceResult, import_file
from valuechain.pipeline.operations import delete
from valuechain.pipeline.sdk_sources import reporter_runs
from valuechain.serve.mcpjam import SdkRuns
from valuechain.serve.spool import (
    OTLP_JSON,
    OTLP_PROTO,
    PART,
    SDK_REPORT,
    Spool,
    Spooled,
    batched,
    fsync_folder,
    sha256_of,
)
from valuechain.store import Database, sqlfiles

# a source's bodies: one decode batch, decoded in this process (no decode workers started;
# a source's memory stays that of one batch however far behind the import is: a cycle taking
# 150k spans left by a killed serve peaked at 880 MB in serve at 64 MiB, 448 MB at 8 MiB)
BATCH_BYTES = DEFAULT_BATCH_BYTES
# the longest the derived analytics may trail the spans while requests keep coming: a derive
# rebuilds the whole runs its traces belong to, so one per cycle under a steady stream rebuilds
# a long run every second (a cycle of 500 spans into a 100k-span run: 0.98 s deriving, 0.18 s
# deferred)
DERIVE_LAG = 10.0
# a derive stages its batches in this process: staging workers (two, ~300 MB each) took serve's
# tree from ~1.05 to ~1.5 GB (VmHWM summed) at 200k spans, and no faster — the checkers and
# the event loop want the other core
DERIVE_WORKERS = 0
_KNOWN = "store/410_served_requests.sql"
_RECORD = "store/411_record_served_requests.sql"


@dataclass(slots=True)
class Cycle:
    """What one cycle did."""

    requests: int = 0  # bodies taken from the spool (imported, or found in the store)
    sources: list[SourceResult] = field(default_factory=list)
    derived: DeriveSummary | None = None
    seconds: float = 0.0  # wall time of the cycle
    cpu_seconds: float = 0.0  # CPU time of the importer thread (decode workers aside)

    @property
    def spans(self) -> int:
        return sum(s.spans for s in self.sources)


class Importer:
    """Imports the spool of ``store`` a cycle at a time (`cycle`)."""

    def __init__(
        self,
        store: Path,
        spool: Spool,
        runs: SdkRuns,
        options: ImportOptions,
        *,
        open_store: Callable[[], Database],
    ) -> None:
        self.store = store
        self.spool = spool
        self.runs = runs
        self.options = options
        self.open_store = open_store
        self.underived = options.derive  # a killed serve may have left imports underived
        self.derived_at = time.monotonic()

    def cycle(self, pool: DecodePool | None = None, *, settle: bool = False) -> Cycle:
        """Import everything spooled now (nothing to do: the store is not opened), and derive
        what was imported — unless more requests arrived meanwhile and the last derive is less
        than ``DERIVE_LAG`` ago: then the next cycle derives both (those requests ring for it).
        ``settle``: derive now whatever is underived (serve's first and last cycles)."""
        done = Cycle()
        wall, cpu = time.perf_counter(), time.thread_time()
        arrivals = self.spool.arrivals
        bodies = self.spool.pending()
        finalized = self.runs.finalized()
        grown = [f for f in self.runs.open_runs() if _grown(f)]
        if not bodies and not finalized and not grown and not self.underived:
            return done
        with self.open_store() as db:
            import_id = db.next_import_id()
            for batch in _batches(bodies):
                done.requests += len(batch)
                fresh = _fresh(db, batch)
                if fresh:
                    done.sources.append(self._otlp_or_report(db, fresh, import_id, pool))
            for folder in finalized:
                entries = self.spool.pending(folder)
                done.requests += len(entries)
                if _fresh(db, entries):
                    _replace_provisional(db, folder)
                    done.sources.append(self._run(db, folder, entries, import_id, pool))
            for folder in grown:
                done.sources.append(self._open_run(db, folder, import_id, pool))
            self.underived |= bool(done.sources) and self.options.derive
            more = self.spool.arrivals != arrivals
            due = time.monotonic() - self.derived_at >= DERIVE_LAG
            if self.underived and (settle or not more or due):
                done.derived = derive_pending(db, workers=DERIVE_WORKERS)
                self.underived, self.derived_at = False, time.monotonic()
        self.spool.remove(bodies)  # every one is in the store now: committed, or found there
        for folder in finalized:
            self.spool.remove(self.spool.pending(folder))
            shutil.rmtree(folder, ignore_errors=True)
        done.seconds = time.perf_counter() - wall
        done.cpu_seconds = time.thread_time() - cpu
        return done

    # ------------------------------------------------------------------ one source each
    def _otlp_or_report(
        self, db: Database, batch: list[Spooled], import_id: int, pool: DecodePool | None
    ) -> SourceResult:
        kind = batch[0].kind
        name = _name(batch, "OTLP/HTTP requests" if kind != SDK_REPORT else "MCPJam SDK report")
        if kind == SDK_REPORT:  # one report: its own bytes, as `import` reads them
            return self._import(db, batch[0].path, name, batch, import_id, pool)
        with tempfile.TemporaryDirectory(dir=self.spool.folder) as tmp:
            path = Path(tmp) / ("batch.pb" if kind == OTLP_PROTO else "batch.ndjson")
            with path.open("wb") as handle:
                for piece in _joined(batch):
                    handle.write(piece)
            return self._import(db, path, name, batch, import_id, pool)

    def _run(
        self,
        db: Database,
        folder: Path,
        entries: list[Spooled],
        import_id: int,
        pool: DecodePool | None,
    ) -> SourceResult:
        with tempfile.TemporaryDirectory(dir=self.spool.folder) as tmp:
            sources = reporter_runs([e.path for e in entries], Path(tmp))
            path = sources[0][0]
            name = _name(entries, "MCPJam SDK streaming reporter bodies")
            return self._import(db, path, name, entries, import_id, pool)

    def _open_run(
        self, db: Database, folder: Path, import_id: int, pool: DecodePool | None
    ) -> SourceResult:
        """Import an open run as it stands (provisional), replacing what stood before."""
        entries = self.spool.pending(folder)
        _replace_provisional(db, folder)
        with tempfile.TemporaryDirectory(dir=self.spool.folder) as tmp:
            path = reporter_runs([e.path for e in entries], Path(tmp))[0][0]
            name = _name(entries, "MCPJam SDK streaming reporter bodies (run still open)")
            result = import_file(db, path, import_id, self.options, pool, name=name)
            _write_state(folder, sha256_of(path), len(entries))
        return result

    def _import(
        self,
        db: Database,
        path: Path,
        name: str,
        batch: Sequence[Spooled],
        import_id: int,
        pool: DecodePool | None,
    ) -> SourceResult:
        def record(con: duckdb.DuckDBPyConnection) -> None:
            _record(con, batch, name)

        result = import_file(db, path, import_id, self.options, pool, name=name, then=record)
        if result.outcome == "unchanged":  # the same bytes are in: `record` was not run
            with db.transaction() as con:
                _record(con, batch, name)
        elif result.outcome == "rejected":  # accepted, yet refused now: kept, never dropped
            self.spool.set_aside(batch)
        return result


_STATE = "in-store.json"  # an open run's provisional source: its sha256, how many bodies


def _grown(folder: Path) -> bool:
    """Whether the open run in ``folder`` has bodies its provisional source lacks."""
    bodies = sum(1 for p in folder.iterdir() if p.name.endswith(SDK_REPORT))
    return bodies > int(_read_state(folder).get("bodies", 0))


def _read_state(folder: Path) -> dict[str, Any]:
    try:
        state: dict[str, Any] = orjson.loads((folder / _STATE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return state


def _write_state(folder: Path, sha256: str, bodies: int) -> None:
    part = folder / (_STATE + PART)
    with part.open("wb") as handle:
        handle.write(orjson.dumps({"sha256": sha256, "bodies": bodies}))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(part, folder / _STATE)
    fsync_folder(folder)


def _replace_provisional(db: Database, folder: Path) -> None:
    """Remove the run's provisional source from the store, if it is there."""
    sha256 = _read_state(folder).get("sha256")
    if isinstance(sha256, str) and db.has_source(sha256):
        delete(db, source=sha256)


def _batches(bodies: list[Spooled]) -> Iterator[list[Spooled]]:
    """OTLP bodies of one encoding together, up to ``BATCH_BYTES``; each report alone."""
    groups: dict[str, list[Spooled]] = {OTLP_PROTO: [], OTLP_JSON: []}
    sizes = {OTLP_PROTO: 0, OTLP_JSON: 0}
    for body in bodies:
        if body.kind == SDK_REPORT:
            yield [body]
            continue
        size = body.path.stat().st_size
        if groups[body.kind] and sizes[body.kind] + size > BATCH_BYTES:
            yield groups[body.kind]
            groups[body.kind], sizes[body.kind] = [], 0
        groups[body.kind].append(body)
        sizes[body.kind] += size
    yield from (group for group in groups.values() if group)


def _joined(batch: list[Spooled]) -> Iterator[bytes]:
    for body in batch:
        yield batched(body.path.read_bytes(), body.kind)


def _fresh(db: Database, batch: list[Spooled]) -> list[Spooled]:
    """The bodies of ``batch`` the store does not hold yet."""
    sql = sqlfiles.statement(_KNOWN)
    shas = [b.sha256 for b in batch]
    known = {r[0] for r in db.con.execute(sql.text, sql.bind({"shas": shas})).fetchall()}
    return [b for b in batch if b.sha256 not in known]


def _record(con: duckdb.DuckDBPyConnection, batch: Sequence[Spooled], source: str) -> None:
    sql = sqlfiles.statement(_RECORD)
    params = {
        "shas": [b.sha256 for b in batch],
        "kinds": [b.kind for b in batch],
        "received_ns": [b.received_ns for b in batch],
        "source": source,
    }
    con.execute(sql.text, sql.bind(params))


def _name(batch: Sequence[Spooled], what: str) -> str:
    """A batch's ledger name: what it is, how many, when they came, and its first body."""
    first = datetime.fromtimestamp(batch[0].received_ns / 1e9, UTC)
    count = f"{len(batch)} " if len(batch) > 1 else ""
    return (
        f"serve: {count}{what} received from {first:%Y-%m-%dT%H:%M:%S.%fZ} "
        f"(first body sha256 {batch[0].sha256[:12]})"
    )


__all__ = ["BATCH_BYTES", "Cycle", "Importer"]
