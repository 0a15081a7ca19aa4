"""The derive step's store reads: resource attributes copied once per derive, and only then."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from evidence_builders import FIRST_TRACE, request, resource, trial_spans

from valuechain.pipeline.derive import TraceBatch, staged_batches
from valuechain.pipeline.imports import ImportOptions, import_file
from valuechain.store import Database

COPY = "evidence_resource_attributes"


def copies(db: Database) -> int:
    row = db.fetch_one(
        "SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name = $t", {"t": COPY}
    )
    assert row is not None
    return int(row[0])


@pytest.fixture
def two_resources(shared: Path, tmp_path: Path) -> Database:
    """One trace split over two imports, each half under a resource of its own."""
    spans = trial_spans(shared)
    other = resource(shared)
    other["attributes"].append({"key": "service.instance.id", "value": {"stringValue": "b"}})
    for k, (part, res) in enumerate(((spans[:4], resource(shared)), (spans[4:], other)), 1):
        path = tmp_path / f"{k}.json"
        path.write_bytes(orjson.dumps(request(part, res)))
        if k == 1:
            db = Database(tmp_path / "store.duckdb")
        import_file(db, path, k, ImportOptions())
    return db


def resource_keys(db: Database) -> list[tuple[int, str]]:
    _, attributes = db.trial_rows([FIRST_TRACE])
    rows = attributes.select(["owner_type", "owner_row", "key"]).to_pylist()
    return sorted((r["owner_row"], r["key"]) for r in rows if r["owner_type"] == "resource")


def test_a_read_alone_copies_the_resources_and_releases_the_copy(
    two_resources: Database,
) -> None:
    with two_resources as db:
        keys = resource_keys(db)
        stored = db.con.execute(
            "SELECT owner_row, key FROM core.attributes WHERE owner_type = 'resource'"
        ).fetchall()
        assert keys == sorted(stored)
        assert len({row for row, _ in keys}) == 2  # both imports' resources
        assert "service.instance.id" in {key for _, key in keys}
        assert copies(db) == 0


def test_reads_inside_one_derive_share_one_copy_released_at_the_end(
    two_resources: Database,
) -> None:
    with two_resources as db:
        before = resource_keys(db)
        with db.evidence_reads():
            assert copies(db) == 1
            with db.evidence_reads():  # nested: the outer copy serves
                assert resource_keys(db) == before
            assert copies(db) == 1
            assert resource_keys(db) == before
        assert copies(db) == 0


def test_a_derive_cut_short_releases_the_copy(two_resources: Database) -> None:
    with two_resources as db:
        batches = [TraceBatch([bytes.fromhex(FIRST_TRACE)])] * 2
        staging = staged_batches(db, batches, 12, workers=0)
        next(staging)
        assert copies(db) == 1
        staging.close()
        assert copies(db) == 0
        with pytest.raises(RuntimeError), db.evidence_reads():
            raise RuntimeError("interrupted")
        assert copies(db) == 0
