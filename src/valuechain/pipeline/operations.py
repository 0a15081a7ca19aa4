"""Operating a store: delete a run or a source, purge content, each in one transaction.

``delete`` removes the spans, evidence, chains and documents that came only from what it names
(``sql/store/0xx`` work out what goes, ``1xx`` remove it); the traces that keep spans of other
sources are derived again, and the runs touched re-materialized, in the same transaction — so
the store is never seen half-deleted, and an interruption leaves it as it was. ``purge_content``
drops the content-gated values (TRACE-FORMAT §3.6) and nothing else. With ``dry_run`` the work
is done and rolled back: the counts are what would change, the store does not.
Every operation that changed the store is logged in ``core.store_operations``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.contract.words import plural
from valuechain.errors import UsageError
from valuechain.materialize.analytics import materialize_in_transaction
from valuechain.pipeline.derive import TraceBatch, run_batches, stage_batch, write_batch
from valuechain.store import Database, sqlfiles

_PLAN_END = "store/100_"  # below: what goes (temporary tables); from here: the removal
_REMOVAL_END = "store/120_"
_COUNTS = "store/060_removal_counts.sql"
_SETTLE_CONFLICTS = "ingest/520_undo_conflicts.sql"
_TEMP = (
    "st_spans",
    "st_sources",
    "st_traces",
    "st_runs",
    "st_owners",
    "st_large_values",
    "undo_conflict_keys",
)


@dataclass(frozen=True, slots=True)
class Removal:
    """What a deletion removed (or, with ``dry_run``, would remove)."""

    target: str
    dry_run: bool
    sources: int  # ledger rows gone (with their issues, quarantine, unknown fields)
    sources_reduced: int  # sources that keep other spans and list fewer now
    spans: int
    traces: int  # traces gone whole (their trials, chains and documents with them)
    traces_rederived: int  # traces that keep spans of other sources: derived again
    trials: int  # trials of the traces gone
    runs: int  # runs re-materialized (a run left without trials loses its documents)
    documents: int  # analytics documents of those runs before the deletion
    events: int
    links: int
    resources: int
    scopes: int
    attributes: int
    large_values: int
    issues: int
    quarantined: int
    run_ids: tuple[str, ...] = ()

    def describe(self) -> str:
        verb = "would remove" if self.dry_run else "removed"
        parts = [
            plural(self.spans, "span"),
            plural(self.traces, "trace"),
            plural(self.trials, "trial"),
            plural(self.sources, "source") + " from the ledger",
            plural(self.attributes, "attribute"),
            plural(self.events, "event"),
            plural(self.links, "link"),
            plural(self.resources, "resource"),
            plural(self.scopes, "scope"),
            plural(self.large_values, "large value"),
            plural(self.issues, "issue"),
            plural(self.quarantined, "quarantined item"),
        ]
        line = f"{self.target}: {verb} " + ", ".join(parts)
        again = "would derive" if self.dry_run else "derived"
        rebuild = "would rebuild" if self.dry_run else "rebuilt"
        line += (
            f"; {again} {plural(self.traces_rederived, 'shared trace')} again and {rebuild} the "
            f"documents of {plural(self.runs, 'run')}"
        )
        if self.sources_reduced:
            keeps = "keeps" if self.sources_reduced == 1 else "keep"
            line += (
                f"; {plural(self.sources_reduced, 'source')} {keeps} spans of other runs and "
                "list fewer in the ledger"
            )
        return line


def delete(
    db: Database,
    *,
    run: str | None = None,
    source: str | None = None,
    dry_run: bool = False,
    analyzer: int = STAGE_ANALYZER_VERSION,
) -> Removal:
    """Delete one run (every span of its traces) or one source (by path or sha256)."""
    if (run is None) == (source is None):
        raise UsageError("store delete", "name exactly one of --run or --source", None)
    source_ids: list[int] = []
    if source is not None:
        source_ids, target = _sources(db, source)
    else:
        assert run is not None
        if not _run_exists(db, run):
            raise UsageError(
                f"run {run}", "no trial of this run is in the store", "list them: valuechain runs"
            )
        target = f"run {run}"
    params = {"source_ids": source_ids, "run_id": run}
    statements = sqlfiles.folder("store")
    try:
        with db.transaction() as con:
            for sql in statements:
                if sql.name < _COUNTS:  # what goes, into temporary tables (read-only too)
                    con.execute(sql.text, sql.bind(params))
            counts = statement_row(db, _COUNTS, params)
            traces = con.execute(_text("store/120_touched_traces.sql")).fetchall()
            runs = [r for (r,) in con.execute(_text("store/121_touched_runs.sql")).fetchall()]
            removal = Removal(target=target, dry_run=dry_run, run_ids=tuple(runs), **counts)
            if dry_run:
                raise _DryRunError
            for sql in statements:
                if _PLAN_END <= sql.name < _REMOVAL_END:
                    con.execute(sql.text, sql.bind(params))
            con.execute(_text(_SETTLE_CONFLICTS))  # a key left with one content: no conflict
            _rederive(
                db,
                [bytes(t) for t, _ in traces],
                [bytes(t) for t, kept in traces if kept],
                runs,
                analyzer,
            )
            db.log_operation("delete", target, asdict(removal))
    except _DryRunError:
        pass
    finally:
        _drop_temp(db)
    return removal


class _DryRunError(Exception):
    """Raised inside the transaction of a dry run to roll it back."""


def _rederive(
    db: Database, touched: list[bytes], remaining: list[bytes], runs: list[str], analyzer: int
) -> None:
    """Inside the open transaction: rebuild the trials of the touched traces (whole runs of
    the remaining ones) and the documents of the runs."""
    widened: set[bytes] = set(touched)
    for batch in run_batches(db.trace_runs(remaining), 1 << 62):
        widened.update(batch.traces)
    staged = stage_batch(db, TraceBatch(sorted(widened)), analyzer)
    write_batch(db, staged, analyzer, content_changed=True)
    materialize_in_transaction(db.con, sorted({*runs, *staged.summary.run_ids}))


def _sources(db: Database, source: str) -> tuple[list[int], str]:
    """The sources ``source`` names: a path as imported or resolving to the same file (every
    byte range ``import --follow`` imported of it too), else a sha256 prefix (8+ digits)."""
    rows = db.con.execute(_text("store/140_find_source.sql")).fetchall()
    wanted = _resolved(source)
    by_path = [
        (int(i), p, h) for i, p, h in rows if p == source or _resolved(_file_of(p)) == wanted
    ]
    prefix = source.lower()
    by_sha = [(int(i), p, h) for i, p, h in rows if len(prefix) >= 8 and h.startswith(prefix)]
    found = by_path or by_sha
    if not found:
        raise UsageError(
            f"source {source}",
            "no imported source has this path or sha256",
            'list them: valuechain sql "SELECT path, sha256 FROM imports"',
        )
    if not by_path and len(by_sha) > 1:
        raise UsageError(
            f"source {source}", f"{len(by_sha)} sources match this sha256 prefix", "give more of it"
        )
    shown = ", ".join(f"{p} ({h[:12]})" for _, p, h in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return [i for i, _, _ in found], f"source {shown}{more}"


def _file_of(path: str) -> str:
    """The file of a ledger path (``FILE#START-END`` for a range ``import --follow`` read)."""
    head, sep, tail = path.rpartition("#")
    return head if sep and "-" in tail and tail.replace("-", "").isdigit() else path


def _resolved(path: str) -> Path:
    return Path(path).expanduser().resolve()


def _run_exists(db: Database, run: str) -> bool:
    row = statement_row(db, "store/141_run_exists.sql", {"run_id": run})
    return bool(row["found"])


def statement_row(db: Database, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The one row of a statement, by column name."""
    sql = sqlfiles.statement(name)
    cursor = db.con.execute(sql.text, sql.bind(params))
    names = [d[0] for d in cursor.description]
    return dict(zip(names, cursor.fetchall()[0], strict=True))


def _text(name: str) -> str:
    return sqlfiles.statement(name).text


def _drop_temp(db: Database) -> None:
    for name in _TEMP:
        db.con.execute(f"DROP TABLE IF EXISTS temp.{name}")


@dataclass(frozen=True, slots=True)
class Purge:
    """What ``purge_content`` dropped (or, with ``dry_run``, would drop)."""

    dry_run: bool
    dropped: int  # gated attribute values removed
    rewritten: int  # tool-call lists that held more than tool names, cut to them (rows)
    large_values: int
    quarantined: int  # quarantined items whose raw JSON went
    unknown_fields: int
    include_content: int  # `mcp.app.export.include_content` flags set to false

    def describe(self) -> str:
        drop, clear = ("would drop", "clear") if self.dry_run else ("dropped", "cleared")
        return (
            f"{drop} {plural(self.dropped, 'content value')} and "
            f"{plural(self.large_values, 'large value')}, "
            f"cut {plural(self.rewritten, 'tool-call list')} "
            f"that held more than tool names down to the names, {clear} the raw JSON of "
            f"{plural(self.quarantined, 'quarantined item')} "
            f"and {plural(self.unknown_fields, 'unknown field')}, set "
            f"{plural(self.include_content, 'include_content flag')} to false; ids, names, counts, "
            "outcomes, grader results, chains and funnels are unchanged"
        )


def purge_content(db: Database, *, dry_run: bool = False) -> Purge:
    """Drop every content-gated value (TRACE-FORMAT §3.6) in one transaction."""
    statements = [s for s in sqlfiles.folder("store") if _PURGE <= s.name < _PURGE_END]
    try:
        with db.transaction() as con:
            con.execute(statements[0].text)
            counts = statement_row(db, _PURGE_COUNTS, {})
            purge = Purge(dry_run=dry_run, **counts)
            if dry_run:
                raise _DryRunError
            for sql in statements[2:]:
                con.execute(sql.text)
            db.log_operation("purge-content", None, asdict(purge))
    except _DryRunError:
        pass
    finally:
        db.con.execute("DROP TABLE IF EXISTS temp.st_gated")
    return purge


_PURGE = "store/200_"
_PURGE_END = "store/300_"
_PURGE_COUNTS = "store/210_purge_counts.sql"
