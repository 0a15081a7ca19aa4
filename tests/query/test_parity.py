"""CONTRACT §5.11 parity, twice: the Python function over two analytics documents
(`query/parity.py`) and the SQL macro over two run ids (`sql/views/129`, `parity_blockers`).

One table of cases drives both, in both directions, so they cannot drift: each case edits the
golden §8.2 document on either side (`ABSENT` deletes a key) and names the blockers in their
emission order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, NamedTuple

import duckdb
import pytest

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.vocab import ParityBlocker as B
from valuechain.query.parity import stage_analytics_parity_blockers
from valuechain.store import Database

GOLDEN: Final = Path(__file__).resolve().parents[2] / "fixtures/golden"
BASE: Final[dict[str, Any]] = json.loads(
    (GOLDEN / "spec_example_stage_analytics/document.json").read_text(encoding="utf-8")
)
ABSENT: Final = object()
MIXED_CHAIN: Final = {"sourceStageAnalyzerVersions": [11, 12]}
MIXED_MEASUREMENTS: Final = {"sourceMeasurementsSchemaVersions": [1, 2]}
PROVISIONAL: Final = {"materializationState": "provisional"}
NO_GROUP: Final = {"runGroupId": ABSENT}
NO_CONFIG: Final = {"configRevision": ABSENT}
NO_CASE_SET: Final = {"caseSetFingerprint": ABSENT}


class Case(NamedTuple):
    name: str
    a: dict[str, Any]
    b: dict[str, Any]
    blockers: list[B]


CASES: Final = (
    Case("identical runs", {}, {}, []),
    Case("run group absent on one side", NO_GROUP, {}, [B.MISSING_RUN_GROUP]),
    Case("run group absent on both sides", NO_GROUP, NO_GROUP, [B.MISSING_RUN_GROUP]),
    Case("run groups differ", {"runGroupId": "other"}, {}, [B.DIFFERENT_RUN_GROUP]),
    Case("config absent on one side", NO_CONFIG, {}, [B.MISSING_CONFIG_IDENTITY]),
    Case("config absent on both sides", NO_CONFIG, NO_CONFIG, [B.MISSING_CONFIG_IDENTITY]),
    Case("configs differ", {"configRevision": "cr_0008"}, {}, [B.DIFFERENT_CONFIG_IDENTITY]),
    Case("case set absent on one side", NO_CASE_SET, {}, [B.MISSING_CASE_SET_IDENTITY]),
    Case("case set absent on both", NO_CASE_SET, NO_CASE_SET, [B.MISSING_CASE_SET_IDENTITY]),
    Case("case sets differ", {"caseSetFingerprint": "x"}, {}, [B.DIFFERENT_CASE_SET_IDENTITY]),
    Case(
        "every identity absent on both sides",
        NO_GROUP | NO_CONFIG | NO_CASE_SET,
        NO_GROUP | NO_CONFIG | NO_CASE_SET,
        [B.MISSING_RUN_GROUP, B.MISSING_CONFIG_IDENTITY, B.MISSING_CASE_SET_IDENTITY],
    ),
    Case("mixed chain versions on one side", MIXED_CHAIN, {}, [B.MIXED_SOURCE_VERSIONS]),
    Case("mixed measurements on one side", MIXED_MEASUREMENTS, {}, [B.MIXED_SOURCE_VERSIONS]),
    Case("a mixed run against itself", MIXED_CHAIN, MIXED_CHAIN, [B.MIXED_SOURCE_VERSIONS]),
    Case(
        "analyzer versions differ", {"stageAnalyzerVersion": 11}, {}, [B.DIFFERENT_ANALYZER_VERSION]
    ),
    Case(
        "measurements versions differ",
        {"measurementsSchemaVersion": 2},
        {},
        [B.DIFFERENT_MEASUREMENTS_VERSION],
    ),
    Case(
        "measurement units differ",
        {"measurementUnit": "session"},
        {},
        [B.DIFFERENT_MEASUREMENT_UNIT],
    ),
    Case("provisional on one side", PROVISIONAL, {}, [B.PROVISIONAL]),
    Case("provisional on both sides", PROVISIONAL, PROVISIONAL, [B.PROVISIONAL]),
    Case(
        "all at once: mixed precedes the analyzer, provisional is last",
        NO_GROUP
        | {"configRevision": "cr_0008"}
        | MIXED_CHAIN
        | PROVISIONAL
        | {"stageAnalyzerVersion": 11, "measurementsSchemaVersion": 2},
        NO_CASE_SET | {"measurementUnit": "session"},
        [
            B.MISSING_RUN_GROUP,
            B.DIFFERENT_CONFIG_IDENTITY,
            B.MISSING_CASE_SET_IDENTITY,
            B.MIXED_SOURCE_VERSIONS,
            B.DIFFERENT_ANALYZER_VERSION,
            B.DIFFERENT_MEASUREMENTS_VERSION,
            B.DIFFERENT_MEASUREMENT_UNIT,
            B.PROVISIONAL,
        ],
    ),
    Case(
        "all three identities differ, with mixed measurements",
        {"runGroupId": "g", "configRevision": "c", "caseSetFingerprint": "f"},
        MIXED_MEASUREMENTS | {"stageAnalyzerVersion": 11},
        [
            B.DIFFERENT_RUN_GROUP,
            B.DIFFERENT_CONFIG_IDENTITY,
            B.DIFFERENT_CASE_SET_IDENTITY,
            B.MIXED_SOURCE_VERSIONS,
            B.DIFFERENT_ANALYZER_VERSION,
        ],
    ),
)
DIRECTIONS: Final = ("a,b", "b,a")


def document(edits: dict[str, Any]) -> dict[str, Any]:
    doc = BASE | edits
    return {key: value for key, value in doc.items() if value is not ABSENT}


def sides(case: Case, direction: str) -> tuple[dict[str, Any], dict[str, Any]]:
    a, b = document(case.a), document(case.b)
    return (a, b) if direction == "a,b" else (b, a)


def model(doc: dict[str, Any]) -> StageAnalyticsV1:
    """The strict model; its `measurementUnit` admits only "trial", so another unit (a
    document from a future contract) is set after validation."""
    valid = StageAnalyticsV1.model_validate(doc | {"measurementUnit": "trial"})
    return valid.model_copy(update={"measurement_unit": doc["measurementUnit"]})


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    with Database(":memory:") as db:
        yield db.con


def store_documents(
    con: duckdb.DuckDBPyConnection, *docs: tuple[str, dict[str, Any], str, int]
) -> None:
    con.execute("DELETE FROM core.analytics_documents")
    con.executemany(
        "INSERT INTO core.analytics_documents VALUES ($1, $2, $3, $4)",
        [[run_id, source, version, json.dumps(doc)] for run_id, doc, source, version in docs],
    )


def test_the_cases_emit_every_blocker() -> None:
    assert {b for case in CASES for b in case.blockers} == set(B)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_python_parity(case: Case, direction: str) -> None:
    a, b = sides(case, direction)
    assert stage_analytics_parity_blockers(model(a), model(b)) == case.blockers


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sql_parity(con: duckdb.DuckDBPyConnection, case: Case, direction: str) -> None:
    a, b = sides(case, direction)
    store_documents(con, ("run-a", a, "derived", 12), ("run-b", b, "derived", 12))
    (got,) = con.execute("SELECT parity_blockers('run-a', 'run-b')").fetchone() or (None,)
    assert got is not None and [B(value) for value in got] == case.blockers
    assert got == [blocker.value for blocker in case.blockers]  # exact wire strings


def test_sql_parity_reads_the_document_it_is_asked_for(con: duckdb.DuckDBPyConnection) -> None:
    """Derived chains at the current analyzer by default; `chains` and `analyzer` pick
    another document of both runs."""
    store_documents(
        con,
        ("run-a", BASE, "derived", 12),
        ("run-b", BASE, "derived", 12),
        ("run-a", document(PROVISIONAL), "producer", 12),
        ("run-b", BASE, "producer", 12),
        ("run-a", document({"stageAnalyzerVersion": 11}), "derived", 11),
        ("run-b", document(NO_GROUP | {"stageAnalyzerVersion": 11}), "derived", 11),
    )
    got = con.execute(
        "SELECT parity_blockers('run-a', 'run-b'), "
        "parity_blockers('run-a', 'run-b', chains := 'producer'), "
        "parity_blockers('run-a', 'run-b', analyzer := 11)"
    ).fetchone()
    assert got == ([], ["provisional"], ["missingRunGroup"])


def test_sql_parity_is_null_without_a_document(con: duckdb.DuckDBPyConnection) -> None:
    """Nothing measured is nothing compared: NULL, never an empty (comparable) list."""
    store_documents(con, ("run-a", BASE, "derived", 12), ("run-b", BASE, "derived", 11))
    got = con.execute(
        "SELECT parity_blockers('run-a', 'run-b'), parity_blockers('run-a', 'nope'), "
        "parity_blockers('run-a', 'run-a')"
    ).fetchone()
    assert got == (None, None, [])
