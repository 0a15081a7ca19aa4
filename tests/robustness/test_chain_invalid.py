"""`W_CHAIN_INVALID` (TRACE-FORMAT §5.2): a persisted chain that fails the CONTRACT §2.1
persisted-shape validator integrity-excludes its trial (`chainUnverified`), is reported once,
and is stored as sent — never repaired. Persisted measurements that fail §4 or disagree with
their chain (§7.4) are reported the same way and exclude the trial from the producer's funnels
as `integrity`/`measurementsInvalid` — never a pass or a fail — while the producer's own
verdict and rows stay as sent and the derived funnels, built from the evidence, keep the
trial. The spec example's chains and measurements pass both checks."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fixtures/public/spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"

# key → the value it gets on the first trial root (None: the key is removed)
MUTATIONS: dict[str, dict[str, Any]] = {
    "a row out of stage order": {"mcp.app.stages.3.name": {"stringValue": "discovery"}},
    "an unknown state": {"mcp.app.stages.2.state": {"stringValue": "sideways"}},
    "an unknown reason": {"mcp.app.stages.4.reason": {"stringValue": "becauseISaidSo"}},
    "a seventh row": {
        "mcp.app.stages.6.name": {"stringValue": "extra"},
        "mcp.app.stages.6.state": {"stringValue": "passed"},
    },
    # its other fields still sent: once a NOT NULL failure that aborted the derivation
    "a row missing": {"mcp.app.stages.5.name": None, "mcp.app.stages.5.state": None},
    # every other trial cites its own span ids: these must not share their chain's verdict
    "span ids that are not strings": {
        "mcp.app.stages.1.evidence.span_ids": {
            "arrayValue": {"values": [{"stringValue": "7b840d1e80c70d5f"}, {"intValue": "7"}]}
        }
    },
    "a first failed stage although none failed": {
        "mcp.app.stages.first_failed": {"stringValue": "call"}
    },
}


# key → the value it gets on the first trial root (None: removed), and the problem named. The
# first trial's chain: six rows `passed`, measurements all `reached`, call/response 380 ms.
MEASUREMENT_MUTATIONS: dict[str, tuple[dict[str, dict[str, Any] | None], str]] = {
    "a reach the state does not admit": (
        {"mcp.app.measurements.1.reach": {"stringValue": "notReached"}},
        "stage 'discovery' reports reach 'notReached', which state 'passed' does not admit",
    ),
    "an unknown reach": (
        {"mcp.app.measurements.2.reach": {"stringValue": "sideways"}},
        "stage 'selection' reports an unknown reach 'sideways'",
    ),
    "a row missing": ({"mcp.app.measurements.5.reach": None}, "stage 'userValue' has no reach"),
    # these two once aborted the derivation on a NOT NULL constraint (nothing could be stored)
    "a latency without its reach": (
        {"mcp.app.measurements.4.reach": None},
        "stage 'response' has no reach",
    ),
    "a seventh row": ({"mcp.app.measurements.6.reach": {"stringValue": "reached"}}, "7 rows"),
    "a latency on connection": (
        {"mcp.app.measurements.0.latency_ms": {"doubleValue": 5.0}},
        "stage 'connection' carries a latency",
    ),
    "a latency on a stage not reached": (
        {"mcp.app.measurements.3.reach": {"stringValue": "unknown"}},
        "stage 'call' carries a latency with reach 'unknown'",
    ),
    "no schema version": ({"mcp.app.measurements.schema_version": None}, "schemaVersion None"),
}
# Changes after which the measurements still agree with the chain.
AGREEING: dict[str, dict[str, dict[str, Any] | None]] = {
    "as sent": {},
    "a latency left out": {"mcp.app.measurements.3.latency_ms": None},
    "the producer's verdict absent": {"mcp.app.measurements.verified": None},
}


def _export(tmp_path: Path, changes: dict[str, dict[str, Any] | None]) -> Path:
    doc = json.loads(EXAMPLE.read_text())
    spans = [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    root = next(s for s in spans if s["name"] == "eval.trial")
    kept = [a for a in root["attributes"] if a["key"] not in changes]
    root["attributes"] = kept + [{"key": k, "value": v} for k, v in changes.items() if v]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    return path


def _imported(tmp_path: Path, changes: dict[str, dict[str, Any] | None]) -> Database:
    db = Database(tmp_path / "s.duckdb")
    report = import_paths(db, [_export(tmp_path, changes)], ImportOptions())
    assert [s.outcome for s in report.sources] == ["imported"]
    return db


def _invalid(db: Database) -> list[tuple[Any, ...]]:
    return db.con.execute(
        "SELECT occurrences, trial_id FROM trial_issues WHERE code = 'W_CHAIN_INVALID'"
    ).fetchall()


def _excluded(db: Database) -> list[tuple[Any, ...]]:
    return db.con.execute(
        "SELECT trial_id, exclusion_class, integrity_codes FROM trials "
        "WHERE exclusion_class IS NOT NULL"
    ).fetchall()


def test_the_spec_example_chains_pass_the_validator(tmp_path: Path) -> None:
    with _imported(tmp_path, {}) as db:
        assert _invalid(db) == []
        assert _excluded(db) == []


@pytest.mark.parametrize("changes", MUTATIONS.values(), ids=MUTATIONS.keys())
def test_an_invalid_persisted_chain_excludes_its_trial_and_is_kept_as_sent(
    changes: dict[str, dict[str, Any] | None], tmp_path: Path
) -> None:
    with _imported(tmp_path, changes) as db:
        [(occurrences, trial_id)] = _invalid(db)
        assert occurrences == 1
        assert _excluded(db) == [(trial_id, "integrity", ["W_CHAIN_INVALID"])]
        stored = db.con.execute(
            "SELECT stage_index, stage, state, reason FROM core.stage_chain "
            "WHERE source = 'producer' AND trial_id = $t ORDER BY stage_index",
            {"t": trial_id},
        ).fetchall()
        for key, value in changes.items():  # never repaired: each changed row as sent
            index, _, field = key.removeprefix("mcp.app.stages.").partition(".")
            if value is None or not index.isdigit() or "stringValue" not in value:
                continue
            row = next(r for r in stored if r[0] == int(index))
            column = {"name": 1, "state": 2, "reason": 3}[field]
            assert row[column] == value["stringValue"]
        integrity = db.con.execute(  # the run's documents count it integrity-excluded
            "SELECT chain_source, count FROM slice_exclusions "
            "WHERE slice_dimension = 'overall' AND class = 'integrity' ORDER BY 1"
        ).fetchall()
        assert integrity and all(count == 1 for _, count in integrity), integrity


def _measurement_issues(db: Database) -> list[tuple[Any, ...]]:
    return db.con.execute(
        "SELECT occurrences, trial_id, message FROM trial_issues "
        "WHERE code = 'W_CHAIN_INVALID' AND key = 'mcp.app.measurements'"
    ).fetchall()


def _producer_outcome(db: Database, trial_id: str) -> tuple[Any, ...]:
    row: tuple[Any, ...] = db.con.execute(
        "SELECT measurements_verified, measurements_agree FROM trial_outcome "
        "WHERE source = 'producer' AND trial_id = $t",
        {"t": trial_id},
    ).fetchall()[0]
    return row


def _exclusions(db: Database) -> dict[str, dict[str, int]]:
    """Per chain source, the overall slice's integrity detail counts of the run's document."""
    out: dict[str, dict[str, int]] = {}
    for source, text in db.con.execute(
        "SELECT chain_source, document FROM analytics_documents ORDER BY 1"
    ).fetchall():
        out[source] = json.loads(text)["excludedTrialDetail"]
    return out


def _first_trial(db: Database) -> str:
    """The trial id of the export's first trial root (the one `_export` changes)."""
    doc = json.loads(EXAMPLE.read_text())
    spans = [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    root = next(s for s in spans if s["name"] == "eval.trial")
    trial_id: str = next(
        a["value"]["stringValue"] for a in root["attributes"] if a["key"] == "mcp.app.trial.id"
    )
    assert db.con.execute("SELECT count(*) FROM trials WHERE trial_id = $t", {"t": trial_id})
    return trial_id


@pytest.mark.parametrize("changes", AGREEING.values(), ids=AGREEING.keys())
def test_measurements_that_agree_with_the_chain_pass(
    changes: dict[str, dict[str, Any] | None], tmp_path: Path
) -> None:
    with _imported(tmp_path, changes) as db:
        assert _measurement_issues(db) == []
        verified = None if "mcp.app.measurements.verified" in changes else True
        assert _producer_outcome(db, _first_trial(db)) == (verified, True)
        assert db.con.execute(
            "SELECT count(*) FROM trial_outcome WHERE source = 'producer' "
            "AND measurements_agree IS NOT TRUE"
        ).fetchall() == [(0,)]


@pytest.mark.parametrize(
    ("changes", "problem"), MEASUREMENT_MUTATIONS.values(), ids=MEASUREMENT_MUTATIONS.keys()
)
def test_measurements_that_disagree_exclude_the_trial_from_the_producer_funnel(
    changes: dict[str, dict[str, Any] | None], problem: str, tmp_path: Path
) -> None:
    with _imported(tmp_path, changes) as db:
        trial_id = _first_trial(db)
        [(occurrences, named, message)] = _measurement_issues(db)
        assert (occurrences, named) == (1, trial_id)
        assert "the persisted measurements of 1 trial disagree with the persisted chain" in message
        assert problem in message
        assert _invalid(db) == [(1, trial_id)]  # the only W_CHAIN_INVALID
        assert _excluded(db) == []  # not a trial-level exclusion: the derived chain stands
        # the producer's verdict as sent, valuechain's check beside it
        verified = None if "mcp.app.measurements.verified" in changes else True
        assert _producer_outcome(db, trial_id) == (verified, False)
        stored = dict(
            db.con.execute(
                "SELECT stage_index, reach FROM stage_measurements "
                "WHERE source = 'producer' AND trial_id = $t",
                {"t": trial_id},
            ).fetchall()
        )
        for key, value in changes.items():  # never repaired: each storable row as sent
            index, _, field = key.removeprefix("mcp.app.measurements.").partition(".")
            if field == "reach" and value is not None and int(index) < 6:
                assert stored[int(index)] == value["stringValue"]
            elif field == "reach":  # no reach, or no stage: nothing to store for that row
                assert int(index) not in stored
        detail = _exclusions(db)  # the producer's funnel counts it, the derived one does not
        assert "measurementsInvalid" not in detail["derived"]
        assert detail["producer"] == {**detail["derived"], "measurementsInvalid": 1}


def test_migrating_an_older_store_checks_the_producer_measurements_it_holds(
    tmp_path: Path,
) -> None:
    """A store written before the check (schema version 6 here) gets it when migrated: the
    same contract rule over the rows it holds, the producer's rows and verdicts unchanged."""
    old = tmp_path / "old.duckdb"
    old.write_bytes(gzip.decompress((ROOT / "fixtures/stores/schema-v6.duckdb.gz").read_bytes()))
    con = duckdb.connect(str(old))
    try:
        [(spoiled,)] = con.execute(
            "SELECT min(trial_id) FROM core.trial_outcome WHERE source = 'producer'"
        ).fetchall()
        con.execute(  # what a v6 import stored as sent, never checked
            "UPDATE core.stage_measurements SET reach = 'sideways' "
            "WHERE source = 'producer' AND trial_id = $t AND stage_index = 2",
            {"t": spoiled},
        )
        before = con.execute("SELECT * FROM core.stage_measurements ORDER BY ALL").fetchall()
    finally:
        con.close()
    with Database(old) as db:  # a writing open migrates (on a copy, swapped in)
        assert db.migrated_from == 6
        checked = db.con.execute(
            "SELECT trial_id, source, measurements_verified, measurements_agree "
            "FROM core.trial_outcome ORDER BY trial_id, source"
        ).fetchall()
        assert (
            db.con.execute("SELECT * FROM core.stage_measurements ORDER BY ALL").fetchall()
            == before
        )
    producer = [(t, agree) for t, source, _, agree in checked if source == "producer"]
    assert len(producer) == 4 and producer == [(t, t != spoiled) for t, _ in producer]
    assert all(v is True for _, source, v, _ in checked if source == "producer")  # as sent
    assert all(a is v for _, source, v, a in checked if source == "derived")
