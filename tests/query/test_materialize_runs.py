"""`materialize_runs`: exactly the listed runs are replaced; createdAt survives rebuilds."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest
from analytics_store import NOW_MS, Funnels, TrialSpec

from valuechain.materialize import analytics, validation, verdict
from valuechain.materialize.analytics import materialize_runs
from valuechain.store import Database


@pytest.fixture
def funnels() -> Iterator[Funnels]:
    db = Database(":memory:")
    try:
        yield Funnels(db)
    finally:
        db.close()


def counts(funnels: Funnels) -> dict[str, int]:
    return dict(
        funnels.con.execute(
            "SELECT run_id, count(*) FROM stage_funnel GROUP BY run_id ORDER BY run_id"
        ).fetchall()
    )


def test_only_listed_runs_are_replaced(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", run_id="r1"), TrialSpec("b", run_id="r2"))
    assert funnels.materialize() == 2
    funnels.add(TrialSpec("c", run_id="r1", intent="new"))
    assert funnels.materialize(["r1"], now_ms=NOW_MS + 5) == 1
    assert counts(funnels) == {"r1": 18, "r2": 12}  # r1 gained an intent slice
    r1, r2 = funnels.doc("r1"), funnels.doc("r2")
    assert (r1["createdAt"], r1["updatedAt"], r1["totalTrials"]) == (NOW_MS, NOW_MS + 5, 2)
    assert (r2["createdAt"], r2["updatedAt"]) == (NOW_MS, NOW_MS)


def test_a_listed_run_without_trials_loses_its_rows(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", run_id="r1"), TrialSpec("b", run_id="r2")).materialize()
    funnels.con.execute("DELETE FROM core.trials WHERE run_id = 'r1'")
    assert funnels.materialize(["r1"]) == 0
    assert counts(funnels) == {"r2": 12}
    runs = funnels.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()
    assert runs == [("r2",)]


def test_materialization_state_rule(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", run_id="done"),
        TrialSpec("b", run_id="judge", chain="P,P,P,P,P,NM:judgePending", reach={5: "reached"}),
        TrialSpec("c", run_id="running", run_status="running"),
        TrialSpec("d", run_id="exported", run_status="running", materialization_state="final"),
        TrialSpec("e", run_id="no-status", run_status=None, status="pending"),
    ).materialize()
    states = {
        r: funnels.doc(r)["materializationState"]
        for r in ("done", "judge", "running", "exported", "no-status")
    }
    assert states == {
        "done": "final",
        "judge": "provisional",
        "running": "provisional",
        "exported": "final",
        "no-status": "provisional",
    }
    assert "runCompletedAt" in funnels.doc("done")
    assert "runCompletedAt" not in funnels.doc("running")  # not terminal: no completion


def test_run_ids_must_be_a_sequence_of_ids(funnels: Funnels) -> None:
    with pytest.raises(TypeError):
        materialize_runs(funnels.con, "run-1")


def test_failed_validation_writes_nothing(
    funnels: Funnels, monkeypatch: pytest.MonkeyPatch
) -> None:
    funnels.add(TrialSpec("a")).materialize()
    before = funnels.text()

    validate = validation.validate_documents

    def broken(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> int:
        # every document gains a key the contract refuses, then the real check runs
        con.execute("UPDATE a_documents SET document = '{\"extra\":1,' || document[2:]")
        return validate(con, params)

    monkeypatch.setattr(analytics, "validate_documents", broken)
    funnels.add(TrialSpec("b"))
    with pytest.raises(ValueError, match="extra"):
        funnels.materialize()
    monkeypatch.undo()
    assert funnels.text() == before
    leftovers = funnels.con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE temporary AND starts_with(table_name, 'a_')"
    ).fetchall()
    assert leftovers == [(0,)]


def test_every_run_mode_also_drops_runs_that_lost_their_trials(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", run_id="r1"), TrialSpec("b", run_id="r2")).materialize()
    funnels.con.execute("DELETE FROM core.trials WHERE run_id = 'r1'")
    assert funnels.materialize() == 1
    assert counts(funnels) == {"r2": 12}


def test_runs_that_cannot_carry_a_document(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", run_id=""),
        TrialSpec("b", run_id="no-suite", suite_id=""),
        TrialSpec("c", run_id="two-suites", suite_id="s1"),
        TrialSpec("d", run_id="two-suites", suite_id="s2"),
        TrialSpec("e", run_id="zero", source="producer", analyzer=0),
    ).materialize()
    blockers = dict(funnels.con.execute("SELECT run_id, document_blocker FROM runs").fetchall())
    assert blockers == {
        "": "runIdEmpty",
        "no-suite": "suiteIdMissing",
        "two-suites": "suiteIdConflict",
        "zero": None,
    }
    assert funnels.doc("zero", chains="producer")["excludedTrialDetail"] == {"chainUnverified": 1}


@pytest.mark.parametrize("batch_runs", [1, 500])
def test_a_refused_decision_summary_writes_nothing(
    funnels: Funnels, monkeypatch: pytest.MonkeyPatch, batch_runs: int
) -> None:
    """Summaries are checked on a thread while later batches are built and written; a
    refusal, in the first batch of several or in the only one, still fails the whole
    materialization before it commits."""
    funnels.add(TrialSpec("a", run_id="r1"), TrialSpec("b", run_id="r2")).materialize()
    before = funnels.text("r1"), funnels.text("r2")
    summaries = funnels.con.execute("SELECT * FROM core.decision_summaries ORDER BY ALL")
    stored = summaries.fetchall()
    monkeypatch.setattr(verdict, "BATCH_RUNS", batch_runs)
    monkeypatch.setattr(validation, "_summary_validator", _Refuses)
    funnels.add(TrialSpec("c", run_id="r1"))
    with pytest.raises(RuntimeError, match=r"run r1 \(derived chains.*made up.*disagree"):
        funnels.materialize()
    assert (funnels.text("r1"), funnels.text("r2")) == before
    assert funnels.con.execute("SELECT * FROM core.decision_summaries ORDER BY ALL").fetchall() == (
        stored
    )


class _Refuses:
    """A schema validator that refuses every summary."""

    def is_valid(self, value: object) -> bool:
        return False

    def iter_errors(self, value: object) -> Iterator[SimpleNamespace]:
        yield SimpleNamespace(message="made up", instance_path=[])
