"""``store …``: look after a store — info, delete, purge-content, migrate, vacuum.

Each changing operation is one transaction (migrate and vacuum: a new file swapped in only
when complete), prints what it changed, and has ``--dry-run``, which changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from valuechain.api.commands import Phase
from valuechain.api.store import DEFAULT_MEMORY_LIMIT, MEMORY_LIMIT_ENV
from valuechain.cli.app import main, open_store, out, store_path
from valuechain.cli.messages import summary
from valuechain.cli.options import DOCUMENT, examples
from valuechain.cli.output import write_json
from valuechain.cli.progress import working
from valuechain.contract.words import number, plural

if TYPE_CHECKING:
    from valuechain.api.store import StoreInfo

say = partial(out.print, highlight=False, soft_wrap=True)
COUNTS = frozenset({"spans", "bytes", "trials", "traces"})  # listed columns printed as counts
DRY_RUN = click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")


@main.group("store")
@examples(
    "valuechain store info",
    "valuechain store delete --run RUN --dry-run",
)
def store_group() -> None:
    """Look after the store: info, delete, purge-content, migrate, vacuum."""


@store_group.command()
@DOCUMENT
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Most sources and runs listed.",
)
@click.pass_context
@examples(
    "valuechain store info --limit 5",
    "valuechain store info --format json",
)
def info(ctx: click.Context, fmt: str, limit: int) -> None:
    """Schema version, analyzer versions present, sizes, rows by table, runs and sources."""
    with open_store(ctx, read_only=True) as store:
        found = store.info(limit=limit)
    if fmt == "json":
        write_json(info_json(found))
        return
    print_info(found)


def info_json(found: StoreInfo) -> dict[str, Any]:
    """The camelCase JSON of ``store info``; timestamps ISO-8601 UTC."""
    summary = {_camel(k): _iso(v) for k, v in found.summary.items()}
    return {
        "path": found.path,
        "schemaVersion": int(found.meta.get("schema_version", 0)),
        "createdBy": found.meta.get("created_by"),
        "fileBytes": found.file_bytes,
        "walBytes": found.wal_bytes,
        **summary,
        "analyzers": found.analyzers,
        "tables": found.tables,
        "sourcesListed": [{**s, "importedAt": _iso(s["importedAt"])} for s in found.sources],
        "runsListed": found.runs,
    }


def print_info(found: StoreInfo) -> None:
    from valuechain.report.columns import Col
    from valuechain.report.tables import FittedTable, cell

    s = found.summary
    created = found.meta.get("created_by")
    say(
        f"store {found.path}: schema version {found.meta.get('schema_version')} "
        f"({f'created by valuechain {created}' if created else 'creator not recorded'}), "
        f"{plural(found.file_bytes, 'byte')} + {plural(found.wal_bytes, 'byte')} of "
        "write-ahead log"
    )
    imported = (
        f"first imported {_iso(s['first_import'])}, last {_iso(s['last_import'])}"
        if s["sources"]
        else "nothing imported yet"
    )
    say(
        f"{plural(s['sources'], 'source')} ({imported}), {plural(s['traces'], 'trace')}, "
        f"{plural(s['runs'], 'run')}, {plural(s['trials'], 'trial')}, "
        f"{plural(s['followed_files'], 'followed file')}, "
        f"{plural(s['operations'], 'store operation')} logged"
    )
    versions = ", ".join(
        f"{a['kind']} {a['source']}@{a['analyzerVersion']}: {number(a['count'])}"
        for a in found.analyzers
    )
    say(f"analyzer versions present: {versions or 'none (nothing derived yet)'}")
    rows = [[name, number(count)] for name, count in found.tables.items()]
    columns = [Col("table"), Col("rows", align="right")]
    out.print(FittedTable(columns, rows, title="rows by table"), crop=False)
    for title, listed in (("sources", found.sources), ("runs", found.runs)):
        if listed:
            order = "newest first" if title == "sources" else "by run id"
            header = [
                Col(c, align="right" if c in COUNTS else "left", keep=k)
                for k, c in enumerate(listed[0])
            ]
            cells = [_listed_row(row, cell) for row in listed]
            heading = f"{title} ({order}, {len(listed)} shown)"
            out.print(FittedTable(header, cells, title=heading, joined=True), crop=False)


def _listed_row(row: dict[str, Any], cell: Callable[[Any], str]) -> list[str]:
    """A listed source or run as table cells: counts with separators, a short sha256,
    timestamps ISO-8601, a missing value as tables show one (∅)."""
    shown = {**row, "sha256": row["sha256"][:12]} if "sha256" in row else row
    return [
        number(v) if k in COUNTS and isinstance(v, int) else cell(_iso(v)) for k, v in shown.items()
    ]


@store_group.command()
@click.option("--run", "run", metavar="RUN", help="Delete this run: every span of its traces.")
@click.option("--source", metavar="PATH|SHA", help="Delete this source (path or sha256 prefix).")
@DRY_RUN
@click.pass_context
@examples(
    "valuechain store delete --run RUN --dry-run",
    "valuechain store delete --source run-17.jsonl.gz",
)
def delete(ctx: click.Context, run: str | None, source: str | None, dry_run: bool) -> None:
    """Remove a run or a source with everything that came only from it; traces shared with
    other sources are derived again and the runs touched re-materialized, in one transaction."""
    if (run is None) == (source is None):
        raise click.UsageError("name exactly one of --run RUN or --source PATH|SHA")
    with open_store(ctx, read_only=dry_run) as store, working(Phase.DELETE, run or source or ""):
        removal = store.delete(run=run, source=source, dry_run=dry_run)
    (say if dry_run else summary)(removal.describe())


@store_group.command("purge-content")
@DRY_RUN
@click.pass_context
@examples(
    "valuechain store purge-content --dry-run",
    "valuechain store purge-content",
)
def purge_content(ctx: click.Context, dry_run: bool) -> None:
    """Drop content-gated values (prompts, outputs, arguments, results: TRACE-FORMAT §3.6),
    keeping every id, name, count, outcome and grader result: chains and funnels stay."""
    with open_store(ctx, read_only=dry_run) as store, working(Phase.PURGE, "content"):
        purge = store.purge_content(dry_run=dry_run)
    (say if dry_run else summary)(purge.describe())


@store_group.command()
@DRY_RUN
@click.option("--no-backup", is_flag=True, help="Do not keep the old file as NAME.vN.bak.")
@click.pass_context
@examples(
    "valuechain --store old.duckdb store migrate --dry-run",
    "valuechain --store old.duckdb store migrate --no-backup",
)
def migrate(ctx: click.Context, dry_run: bool, no_backup: bool) -> None:
    """Upgrade an older store to this valuechain's schema: a copy is migrated and swapped in
    only once complete; the old file is kept beside it unless --no-backup."""
    from valuechain.api.store import migrate_store

    with working(Phase.MIGRATE, str(store_path(ctx))):
        migration = migrate_store(
            store_path(ctx), memory_limit=_limit(ctx), dry_run=dry_run, backup=not no_backup
        )
    (say if dry_run else summary)(migration.describe())


@store_group.command()
@DRY_RUN
@click.pass_context
@examples(
    "valuechain store vacuum --dry-run",
    "valuechain store vacuum",
)
def vacuum(ctx: click.Context, dry_run: bool) -> None:
    """Reclaim the space deletes freed (the store is copied compactly and swapped in)."""
    from valuechain.api.store import vacuum_store

    with working(Phase.VACUUM, str(store_path(ctx))):
        result = vacuum_store(store_path(ctx), memory_limit=_limit(ctx), dry_run=dry_run)
    (say if dry_run else summary)(result.describe())


def _limit(ctx: click.Context) -> str:
    limit: str | None = ctx.find_root().obj.memory_limit
    return limit or os.environ.get(MEMORY_LIMIT_ENV) or DEFAULT_MEMORY_LIMIT


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def _iso(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return value
