"""Schema versions: create a store, bring an older one up to date safely, keep its views current.

A store records its schema version in ``core.meta``. Opening one for writing creates what is
missing and (re)creates the views of ``sql/views`` — only when the digest of ``sql/schema`` and
``sql/views`` it recorded last differs from this valuechain's: opening a current store writes
nothing (a damaged one is refused as it was; the open took 36–111 ms instead of 142–500 ms on
10–24 MB stores, a loaded 2-core machine). An older store is migrated through ``sql/migrate``
first (then ``backfill.py``'s checks, whose rule is the contract's) — never in place: the
migration runs on a copy beside the store, and only a copy that migrated completely replaces
the store (an interruption, a failing script or a full
disk leaves the old file exactly as it was). ``valuechain store migrate`` does the same on its
own, says what it ran, and can keep the old file as a backup. A read-only open of an older
store is refused with that command as the fix; a newer store is refused, never rewritten.

The views a read-only open finds are the ones its last writable open created: after an upgrade
of valuechain they may be older than its queries. Each writable open records a digest of
``sql/views`` in ``core.meta``; a read-only open whose digest differs creates this valuechain's
views as temporary views over the same tables (they shadow the stored ones, for this connection
only), so a reading command never meets a view of another version.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

from valuechain._version import __version__
from valuechain.contract.versions import STAGE_ANALYZER_VERSION
from valuechain.errors import StoreError, VersionAheadError
from valuechain.store import sqlfiles
from valuechain.store.files import copy_durably, replace_durably, work_file

MEASUREMENTS_CHECKED_FROM = 12  # the store schema version whose derive step runs the check
STORE_SCHEMA_VERSION = 12  # sql/migrate/NNN_{before,after}_* bring an older store to NNN
VIEWS_DIGEST = "views_digest"
SETUP_DIGEST = "setup_digest"
MIGRATE_HINT = "run `valuechain store migrate` (it upgrades the store safely, keeping a backup)"

Connect = Callable[[Path], duckdb.DuckDBPyConnection]


@dataclass(frozen=True, slots=True)
class MigrationPlan:
    """What migrating a store would run (``scripts`` in order; none when it is current)."""

    path: str
    from_version: int
    to_version: int
    scripts: tuple[str, ...]

    @property
    def needed(self) -> bool:
        return self.from_version < self.to_version


def stored_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The store's schema version; None for a file without valuechain's tables."""
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema = 'core' AND table_name = 'meta'"
    ).fetchall()
    if not found or not found[0][0]:
        return None
    rows = con.execute("SELECT value FROM core.meta WHERE key = 'schema_version'").fetchall()
    return int(rows[0][0]) if rows else 0


def check_version(
    con: duckdb.DuckDBPyConnection, where: str, *, read_only: bool, allow_older: bool = False
) -> int | None:
    """The store's version: refused when newer; when older and ``read_only``, refused with
    ``valuechain store migrate`` as the fix (unless ``allow_older``)."""
    version = stored_version(con)
    if version is not None and version > STORE_SCHEMA_VERSION:
        raise VersionAheadError(
            where,
            f"the store has schema version {version}, newer than this "
            f"valuechain ({__version__}) understands ({STORE_SCHEMA_VERSION})",
            "upgrade valuechain; the store was not changed",
        )
    if read_only and not allow_older and version is not None and version < STORE_SCHEMA_VERSION:
        raise StoreError(
            where,
            f"the store has schema version {version}, older than this valuechain's "
            f"({STORE_SCHEMA_VERSION}); a reading command does not upgrade it",
            MIGRATE_HINT,
        )
    return version


def migrations(stored: int | None, phase: str) -> list[sqlfiles.SqlFile]:
    """The ``sql/migrate`` scripts of ``phase`` (before/after the schema files) that bring a
    store at version ``stored`` up to date, in order; none for a new store."""
    if stored is None:
        return []
    out = []
    for sql in sqlfiles.folder("migrate"):
        version, file_phase, _ = sql.name.partition("/")[2].split("_", 2)
        if file_phase == phase and int(version) > stored:
            out.append(sql)
    return out


def create(con: duckdb.DuckDBPyConnection, stored: int | None) -> None:
    """Create what is missing, run the migrations from ``stored``, (re)create the views and
    record the version and the views' digest, in one transaction."""
    con.begin()
    try:
        params = {"current_analyzer": STAGE_ANALYZER_VERSION}
        for sql in migrations(stored, "before"):  # e.g. set a table aside to rebuild it
            con.execute(sql.text, sql.bind(params))
        for sql in sqlfiles.folder("schema"):
            con.execute(sql.text)
        for sql in migrations(stored, "after"):
            con.execute(sql.text, sql.bind(params))
        if stored is not None and stored < MEASUREMENTS_CHECKED_FROM:
            # the contract's rule, in Python: loaded only for a store that predates it
            from valuechain.store.backfill import check_producer_measurements  # noqa: PLC0415

            check_producer_measurements(con)
        for sql in sqlfiles.folder("views"):
            con.execute(sql.text)
        for key, value in (
            ("schema_version", str(STORE_SCHEMA_VERSION)),
            (VIEWS_DIGEST, views_digest()),
            (SETUP_DIGEST, setup_digest()),
        ):
            con.execute("INSERT OR REPLACE INTO core.meta VALUES ($k, $v)", {"k": key, "v": value})
        con.execute(
            "INSERT OR IGNORE INTO core.meta VALUES ('created_by', $by)", {"by": __version__}
        )
        con.commit()
    except BaseException:
        con.rollback()
        raise


def setup_needed(con: duckdb.DuckDBPyConnection, stored: int | None) -> bool:
    """Whether `create` has anything to do: a new store, an older one, or one whose set-up
    (``sql/schema`` and ``sql/views``) another valuechain recorded."""
    if stored is None or stored < STORE_SCHEMA_VERSION:
        return True
    recorded = dict(
        con.execute(
            "SELECT key, value FROM core.meta WHERE key IN ($setup, $views)",
            {"setup": SETUP_DIGEST, "views": VIEWS_DIGEST},
        ).fetchall()
    )
    # an older valuechain records (and changes) the views' digest only
    return recorded != {SETUP_DIGEST: setup_digest(), VIEWS_DIGEST: views_digest()}


@cache
def views_digest() -> str:
    """A digest of this valuechain's ``sql/views`` (names and texts, in order)."""
    return _digest("views")


@cache
def setup_digest() -> str:
    """A digest of what `create` runs on a current store: ``sql/schema``, then ``sql/views``."""
    return _digest("schema", "views")


def _digest(*folders: str) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for sql in sqlfiles.folder(folder):
            digest.update(sql.name.encode() + b"\0" + sql.text.encode() + b"\0")
    return digest.hexdigest()


_CREATE = re.compile(r"\bCREATE OR REPLACE (VIEW|MACRO)\b")
_MAIN = re.compile(r"\bmain\.")
_CORE = re.compile(r"(?<![.\w])core\.")  # temporary objects name the store's catalog


def refresh_views_if_stale(con: duckdb.DuckDBPyConnection, where: str) -> bool:
    """On a read-only connection: when the stored views are not this valuechain's, create its
    views as temporary ones (this connection only). Returns whether it had to."""
    rows = con.execute("SELECT value FROM core.meta WHERE key = $k", {"k": VIEWS_DIGEST}).fetchall()
    if rows and rows[0][0] == views_digest():
        return False
    catalog = '"' + str(con.execute("SELECT current_database()").fetchall()[0][0]) + '".core.'
    for sql in sqlfiles.folder("views"):
        text = _temporary(sql.text, catalog)
        try:
            con.execute(text)
        except duckdb.Error as exc:
            raise StoreError(
                where,
                f"the store's views are from another valuechain version and {sql.name} cannot "
                f"be recreated over its tables ({exc})",
                "open the store once for writing (e.g. valuechain materialize): that rebuilds them",
            ) from exc
    return True


def _temporary(text: str, catalog: str) -> str:
    """A view or macro of ``sql/views`` as a temporary one: created in ``temp``, naming the
    other temporary ones for what ``sql/views`` defines and the store's catalog for tables."""
    text = _CREATE.sub(r"CREATE OR REPLACE TEMP \1", text)
    text = _MAIN.sub("temp.", text)
    own = _own_objects()
    if own is not None:
        text = own.sub(r"temp.\1", text)
    return _CORE.sub(catalog, text)


@cache
def _own_objects() -> re.Pattern[str] | None:
    """References to the views and macros ``sql/views`` defines in schema ``core`` (None: it
    defines none)."""
    found = re.compile(r"CREATE OR REPLACE (?:VIEW|MACRO) core\.(\w+)")
    names = sorted({n for sql in sqlfiles.folder("views") for n in found.findall(sql.text)})
    if not names:
        return None
    return re.compile(r"(?<![.\w])core\.(" + "|".join(map(re.escape, names)) + r")\b")


def plan(con: duckdb.DuckDBPyConnection, where: str) -> MigrationPlan:
    """What migrating the store behind ``con`` would run (refusing a newer one)."""
    version = check_version(con, where, read_only=True, allow_older=True)
    start = STORE_SCHEMA_VERSION if version is None else version
    scripts = [*migrations(start, "before"), *migrations(start, "after")]
    return MigrationPlan(where, start, STORE_SCHEMA_VERSION, tuple(s.name for s in scripts))


def migrate_file(
    path: Path,
    stored: int,
    connect: Connect,
    backup: Path | None = None,
    finish: Callable[[duckdb.DuckDBPyConnection], None] | None = None,
) -> None:
    """Migrate the store at ``path`` (checkpointed; its caller holds it open, so no other
    process writes to it) from ``stored`` on a copy beside it, then swap the copy in;
    ``backup``: keep the old file there; ``finish``: a last write to the migrated copy (the
    operation's log), swapped in with it. Any failure removes the copy and leaves ``path`` as
    it was."""
    with work_file(
        path,
        "migrating",
        f"migrating the store from schema version {stored} failed",
        "free disk space or fix the cause, then run `valuechain store migrate` again",
    ) as work:
        shutil.copyfile(path, work)  # the store is closed and checkpointed: one file
        con = connect(work)
        try:
            create(con, stored)
            if finish is not None:
                finish(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        if backup is not None:
            copy_durably(path, backup)
        replace_durably(work, path)
