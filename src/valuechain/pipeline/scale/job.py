"""``valuechain scale``: the single-machine rules mapped over many export files with Ray Data.

1. **Decode** — a dataset of file paths, ``map_batches(decode_files, batch_size=1,
   batch_format="pyarrow")``: `decode_export` per file, one row per span carrying its
   attributes (`rows.decoded_rows`); the decoded rows are materialized once.
2. **Key** — a small pass (`stages.summaries`) tells the driver every file's sha256 and status
   and, per (trace, file), the trial root's run id. The driver numbers the sources as an
   import would (accepted files, the first of identical bytes, in import order) and gives each
   trace its run key as ``sql/query/trace_runs.sql`` does — so a trace whose root is in one
   file and whose tool spans are in others gets one key, whichever file each span came from.
3. **Shuffle and derive** — ``groupby("run_key").map_groups(derive_run)``: each group is one
   whole run, however its spans were spread over files; it is assembled as the store would
   hand it to the derive step (`rows.assemble`), derived by `stage_rows`, materialized by
   `materialize_runs` in a DuckDB of that run alone, and written by the export's statements
   in the export layout (``pipeline.export``) below the output folder.

The output is written beside ``DIR`` and renamed into place at the end.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.words import plural
from valuechain.errors import UsageError
from valuechain.materialize.analytics import epoch_ms, utc_now
from valuechain.pipeline.export import check_target, fill_empty_tables, swap_in
from valuechain.pipeline.imports import plan
from valuechain.pipeline.progress import ImportProgress, Phase, Silent
from valuechain.pipeline.scale import stages
from valuechain.pipeline.scale.rows import TRACE_SOURCES, run_keys

RAY_HINT = "install the extra: pip install 'valuechain[ray]'"
RAY_ADDRESS_ENV = "RAY_ADDRESS"
DEFAULT_NUM_CPUS = 2
MAX_PARTITIONS = 200  # Ray Data's own default for a hash shuffle


@dataclass(frozen=True, slots=True)
class RejectedFile:
    path: str
    problem: str


@dataclass(frozen=True, slots=True)
class ScaleSummary:
    """What one scale-out run read and wrote."""

    path: Path
    files: int
    bytes_read: int
    runs: tuple[str, ...]
    traces: int
    trials: int
    derived: int
    documents: int
    rejected: tuple[RejectedFile, ...] = ()
    duplicates: tuple[str, ...] = ()

    def describe(self) -> str:
        text = (
            f"derived {plural(self.derived, 'chain')} over {plural(self.trials, 'trial')} in "
            f"{plural(len(self.runs), 'run')} from {plural(self.files, 'file')} "
            f"({plural(self.bytes_read, 'byte')}) into {self.path}"
        )
        return text


def require_ray() -> ModuleType:
    """The ``ray`` module, or a `UsageError` naming the extra that installs it."""
    try:
        import ray  # noqa: PLC0415 (optional dependency)
        import ray.data  # noqa: PLC0415
    except ImportError:
        raise UsageError("valuechain scale", "Ray is not installed", RAY_HINT) from None
    return ray


def scale_paths(
    paths: Iterable[str | Path],
    out: str | Path,
    *,
    analyzer: int = STAGE_ANALYZER_VERSION,
    overwrite: bool = False,
    clock: Callable[[], datetime] = utc_now,
    num_cpus: int = DEFAULT_NUM_CPUS,
    progress: ImportProgress | None = None,
) -> ScaleSummary:
    """Derive and materialize the exports at ``paths`` with Ray Data into ``out``.

    Ray is initialised here when it is not already: the cluster at ``$RAY_ADDRESS``, else a
    local one of ``num_cpus`` workers (shut down again at the end).

    Raises:
        UsageError: a path matches nothing, Ray is missing, ``out`` is not empty (without
            ``overwrite``).
    """
    files, missing, _skipped = plan(paths)
    if missing:
        first = missing[0].error  # what the path is, or that nothing matched, and the fix
        assert first is not None  # every rejection says why
        raise UsageError(first.source, first.problem, first.hint)
    if not files:
        raise UsageError("PATHS", "no export files found", "name export files or folders")
    target = Path(out).resolve()
    check_target(target, overwrite, None, "--out")
    ray = require_ray()
    started = _init(ray, num_cpus)
    progress = progress or Silent()
    staging = target.parent / f".{target.name}.scale-{uuid.uuid4().hex[:12]}"
    staging.mkdir(parents=True)
    try:
        summary = _run(ray, files, staging, analyzer, epoch_ms(clock()), progress)
        fill_empty_tables(staging, stages.SCALE_TABLES)
        swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if started:
            ray.shutdown()
    return ScaleSummary(target, **summary)


def _init(ray: Any, num_cpus: int) -> bool:
    """Connect to Ray; True when this call started it (and so shuts it down)."""
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "logging_level": "ERROR"}
    if not os.environ.get(RAY_ADDRESS_ENV):
        kwargs["num_cpus"] = num_cpus
    ray.init(**kwargs)
    return True


def _run(
    ray: Any,
    files: Sequence[Path],
    out: Path,
    analyzer: int,
    now_ms: int,
    progress: ImportProgress,
) -> dict[str, Any]:
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the caller's progress bar says how far it is
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no per-dataset INFO lines
    items = [{"path": str(p), "source_index": i} for i, p in enumerate(files)]
    sizes = sum(p.stat().st_size for p in files)
    progress.start(Phase.DECODE, sizes, f"{len(files)} files")
    decoded = (
        ray.data.from_items(items, override_num_blocks=len(items))
        .map_batches(stages.decode_files, batch_size=1, batch_format="pyarrow")
        .materialize()
    )
    progress.advance(sizes)
    facts = _facts(ray, decoded)
    sources = source_numbers(facts["files"])
    keys = run_keys(facts["traces"], sources.ids).to_arrow()
    progress.start(Phase.DERIVE, keys.num_rows, f"at analyzer {analyzer}")
    derived = (
        decoded.map_batches(
            stages.key_rows,
            fn_kwargs={"run_keys": keys, "source_ids": sources.ids},
            batch_format="pyarrow",
        )
        .groupby("run_key", num_partitions=_partitions(keys))
        .map_groups(
            stages.derive_run,
            fn_kwargs={
                "sha256": sources.sha256,
                "out": str(out),
                "analyzer": analyzer,
                "now_ms": now_ms,
            },
            batch_format="pyarrow",
        )
    )
    totals = {"traces": 0, "trials": 0, "derived": 0, "documents": 0}
    runs: list[str] = []
    for batch in derived.iter_batches(batch_format="pyarrow", batch_size=None):
        for row in batch.to_pylist():
            for name in totals:
                totals[name] += row[name]
            runs.extend(row["run_ids"])
            progress.advance(row["traces"])
    return {
        "files": len(files),
        "bytes_read": sizes,
        "runs": tuple(sorted(runs)),
        "rejected": sources.rejected,
        "duplicates": sources.duplicates,
        **totals,
    }


def _partitions(keys: pa.Table) -> int:
    """Shuffle partitions: one per run, at most `MAX_PARTITIONS` (each is one reduce task)."""
    return max(1, min(MAX_PARTITIONS, len(pc.unique(keys.column("run_key")))))


def _facts(ray: Any, decoded: Any) -> dict[str, pa.Table]:
    """The file rows and the trace-source rows of the decoded dataset, on the driver."""
    tables = ray.get(decoded.map_batches(stages.summaries, batch_format="pyarrow").to_arrow_refs())
    facts = pa.concat_tables(tables)
    is_file = facts.column("file").is_valid()
    files = pa.Table.from_struct_array(facts.filter(is_file).column("file").combine_chunks())
    traces = facts.filter(pc.invert(is_file)).select(TRACE_SOURCES.names)
    return {"files": files, "traces": traces}


@dataclass(frozen=True, slots=True)
class SourceNumbers:
    """The store ids an import of the same files in the same order would give them."""

    ids: dict[int, int]  # file index → source id
    sha256: dict[int, str]  # source id → sha256
    rejected: tuple[RejectedFile, ...]
    duplicates: tuple[str, ...]


def source_numbers(files: pa.Table) -> SourceNumbers:
    """Accepted files numbered from 1 in import order; a file of the same bytes as an
    earlier one is not a new source (an import finds it unchanged)."""
    ids: dict[int, int] = {}
    sha256: dict[int, str] = {}
    seen: set[str] = set()
    rejected: list[RejectedFile] = []
    duplicates: list[str] = []
    for row in sorted(files.to_pylist(), key=lambda r: r["source_index"]):
        if row["status"] == "rejected" or row["sha256"] is None:
            rejected.append(RejectedFile(row["path"], row["problem"] or "rejected"))
        elif row["sha256"] in seen:
            duplicates.append(row["path"])
        else:
            seen.add(row["sha256"])
            ids[row["source_index"]] = len(ids) + 1
            sha256[len(ids)] = row["sha256"]
    return SourceNumbers(ids, sha256, tuple(rejected), tuple(duplicates))
