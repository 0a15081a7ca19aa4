"""The functions the scale-out path maps over its data, each a plain function over Arrow.

Ray Data calls them (``map_batches``/``map_groups`` with ``batch_format="pyarrow"``), but
nothing here imports Ray: a test calls them directly. Each is the single-machine path's own
code — `decode_export`, the evidence adapter and analyzer behind `stage_rows`,
`materialize_runs`, the export's statements — applied to a file or to one run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from valuechain.ingest.decode import decode_export
from valuechain.ingest.source.decoded import DecodedSource, DecodeOptions
from valuechain.materialize.analytics import materialize_runs
from valuechain.pipeline.export import RUN_TABLES, TRIAL_TABLES, write_tables
from valuechain.pipeline.scale.rows import (
    ROWS_SCHEMA,
    TRACE_SOURCES,
    assemble,
    decoded_rows,
    keyed_rows,
)
from valuechain.pipeline.scale.rows import trace_sources as trace_source_rows
from valuechain.pipeline.staging import stage_rows
from valuechain.store import Database, sqlfiles

# What the scale-out path writes per run: the derived trial tables and the run's documents.
SCALE_TABLES = (*TRIAL_TABLES, *RUN_TABLES)

# One row per file read: where it stands once decoded.
FILES_SCHEMA = pa.schema(
    [
        ("source_index", pa.int32()),
        ("path", pa.string()),
        ("sha256", pa.string()),
        ("bytes", pa.int64()),
        ("status", pa.string()),
        ("problem", pa.string()),
        ("spans", pa.int64()),
    ]
)
# One row per run derived.
RUNS_SCHEMA = pa.schema(
    [
        ("run_key", pa.string()),
        ("run_ids", pa.list_(pa.string())),
        ("traces", pa.int64()),
        ("trials", pa.int64()),
        ("derived", pa.int64()),
        ("issues", pa.int64()),
        ("documents", pa.int64()),
    ]
)


def decode_files(batch: pa.Table) -> pa.Table:
    """Decode the files of a batch (``path``, ``source_index``): their span rows, and one
    ``file`` row each (`FILES_SCHEMA` in ``file``) saying what came of the file."""
    rows, files = [], []
    for path, index in zip(
        batch.column("path").to_pylist(), batch.column("source_index").to_pylist(), strict=True
    ):
        decoded, problem, size = _decode(Path(path))
        accepted = decoded is not None and decoded.status != "rejected"
        if decoded is not None and accepted:
            rows.append(decoded_rows(decoded, index))
        files.append(
            {
                "source_index": index,
                "path": path,
                "sha256": decoded.sha256 if decoded is not None else None,
                "bytes": size,
                "status": decoded.status if decoded is not None else "rejected",
                "problem": problem,
                "spans": decoded.span_count if decoded is not None and accepted else 0,
            }
        )
    spans = pa.concat_tables(rows) if rows else ROWS_SCHEMA.empty_table()
    return with_files(spans, pa.Table.from_pylist(files, FILES_SCHEMA))


def _decode(path: Path) -> tuple[DecodedSource | None, str | None, int]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read the file ({exc.strerror})", 0
    decoded = decode_export(data, str(path), DecodeOptions())
    problem = decoded.rejection.render() if decoded.rejection is not None else None
    return decoded, problem, len(data)


FILE = pa.struct(FILES_SCHEMA)


def with_files(spans: pa.Table, files: pa.Table) -> pa.Table:
    """Span rows and file rows in one table (a dataset has one schema): a file row has no
    span columns, a span row no ``file``."""
    return _stacked(spans, ROWS_SCHEMA, pa.array(files.to_pylist(), FILE))


def summaries(batch: pa.Table) -> pa.Table:
    """The small facts the driver needs of decoded rows: the file rows, and per (trace,
    source) the trial root's run id (`trace_source_rows`), stacked likewise."""
    is_file = batch.column("file").is_valid()
    files = batch.filter(is_file).column("file").combine_chunks()
    traces = trace_source_rows(batch.filter(pc.invert(is_file)))
    return _stacked(traces, TRACE_SOURCES, files)


def _stacked(rows: pa.Table, schema: pa.Schema, files: pa.Array) -> pa.Table:
    """``rows`` (cast to ``schema``) then one row per file, with the ``file`` column."""
    padding = pa.table({f.name: pa.nulls(len(files), f.type) for f in schema}, schema=schema)
    body = pa.concat_tables([rows.cast(schema), padding])
    column = pa.concat_arrays([pa.nulls(rows.num_rows, FILE), files.cast(FILE)])
    return body.append_column("file", column)


def key_rows(batch: pa.Table, *, run_keys: pa.Table, source_ids: Mapping[int, int]) -> pa.Table:
    """The span rows of kept sources, with their store source id and their run key."""
    spans = batch.filter(pc.invert(batch.column("file").is_valid())).drop_columns("file")
    keys = pl.from_arrow(run_keys)
    assert isinstance(keys, pl.DataFrame)
    return keyed_rows(spans, keys, source_ids)


def derive_run(
    group: pa.Table, *, sha256: Mapping[int, str], out: str, analyzer: int, now_ms: int
) -> pa.Table:
    """One run's rows → its trials, chains, documents and verdicts, written below ``out`` in
    the export layout by a DuckDB store of this run alone (in memory); one `RUNS_SCHEMA` row.

    The store holds the run's assembled span and attribute rows too (``sql/scale``): the
    verdict step reads the trial roots' keys there, as it does in an imported store.
    """
    rows = assemble(group, sha256)
    staged = stage_rows(rows, analyzer)
    runs = list(staged.summary.run_ids)
    db = Database(":memory:")
    try:
        evidence = {"run_spans": rows.spans, "run_attributes": rows.attributes}
        for name, table in evidence.items():
            db.con.register(name, table)
        for sql in sqlfiles.folder("scale"):
            db.con.execute(sql.text)
        db.replace_trials(
            staged.traces, staged.tables, analyzer=analyzer, replace_all_versions=True
        )
        documents = materialize_runs(db.con, runs, clock=fixed_clock(now_ms)) if runs else 0
        write_tables(db.con, Path(out), SCALE_TABLES, runs=runs, fill_empty=False)
    finally:
        db.close()
    summary = staged.summary
    return pa.Table.from_pylist(
        [
            {
                "run_key": group.column("run_key")[0].as_py() if group.num_rows else "",
                "run_ids": runs,
                "traces": staged.traces.num_rows,
                "trials": summary.trials,
                "derived": summary.derived,
                "issues": summary.issues,
                "documents": documents,
            }
        ],
        RUNS_SCHEMA,
    )


def fixed_clock(now_ms: int) -> Callable[[], datetime]:
    """The one materialization time every worker stamps (the driver's start)."""
    moment = datetime.fromtimestamp(now_ms / 1000, UTC)
    return lambda: moment
