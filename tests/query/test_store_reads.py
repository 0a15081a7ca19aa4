"""The small reads behind the CLI verbs: run checks, blockers, disagreements, failing trials."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from analytics_store import Funnels, TrialSpec

from valuechain.query.chains import chain_disagreements
from valuechain.query.funnel import run_exists
from valuechain.query.runs import document_blocker
from valuechain.query.statements import query_frame, query_rows
from valuechain.query.trial import first_failing_trial
from valuechain.store import Database, sqlfiles


@pytest.fixture
def chains() -> Iterator[Funnels]:
    """run-1: a agrees with its producer chain, b does not (three stages); run-2: c, no producer."""
    db = Database(":memory:")
    try:
        yield Funnels(db).add(
            TrialSpec("a"),
            TrialSpec("a", source="producer", trial_row=False),
            TrialSpec("b", chain="P,P,P,F,NR,NR"),
            TrialSpec("b", source="producer", trial_row=False),
            TrialSpec("c", run_id="run-2", chain="P,F,NR,NR,NR,NR"),
        )
    finally:
        db.close()


def test_every_query_file_is_one_statement_with_a_header() -> None:
    files = sqlfiles.folder("query")
    assert files
    for sql in files:
        assert sql.text.startswith("--"), sql.name
        assert "Grain" in sql.text and "Reads:" in sql.text, sql.name
        body = "\n".join(line.split("--", 1)[0] for line in sql.text.splitlines()).strip()
        assert body.endswith(";") and body.count(";") == 1, sql.name


def test_a_statement_is_given_exactly_the_parameters_it_names(chains: Funnels) -> None:
    rows = query_rows(chains.con, "query/run_exists.sql", {"run_id": "run-1", "other": 1})
    assert rows == [{"found": True}]
    frame = query_frame(chains.con, "query/producer_chain_trials.sql", {"run": None})
    assert frame.to_dicts() == [{"n": 2}]
    with pytest.raises(KeyError, match="run_id"):
        query_rows(chains.con, "query/run_exists.sql", {})


def test_run_exists_only_for_runs_with_trials(chains: Funnels) -> None:
    assert run_exists(chains.con, "run-1") and run_exists(chains.con, "run-2")
    assert not run_exists(chains.con, "run-3")
    assert not run_exists(chains.con, "")


def test_chain_disagreements_stage_by_stage(chains: Funnels) -> None:
    found = chain_disagreements(chains.con)
    assert (found.compared, found.trials) == (2, 1)
    assert found.rows.select("trial_id", "stage", "producer_state", "derived_state").rows() == [
        ("b", "call", "passed", "failed"),
        ("b", "response", "passed", "notReached"),
        ("b", "userValue", "passed", "notReached"),
    ]
    assert found.rows.columns[:4] == ["run_id", "trial_id", "stage_index", "stage"]
    only_two = chain_disagreements(chains.con, "run-2")
    assert (only_two.compared, only_two.trials, only_two.rows.height) == (0, 0, 0)
    assert chain_disagreements(chains.con, "run-1").rows.height == 3


def test_first_failing_trial_reads_derived_outcomes_in_id_order(chains: Funnels) -> None:
    assert first_failing_trial(chains.con) is None  # no outcome names a failed stage yet
    chains.con.execute(
        "UPDATE core.trial_outcome SET first_failed_stage = 'call' WHERE trial_id IN ('b', 'c')"
    )
    assert first_failing_trial(chains.con) == "b"
    chains.con.execute(
        "UPDATE core.trial_outcome SET first_failed_stage = NULL "
        "WHERE trial_id = 'b' AND source = 'derived'"
    )
    assert first_failing_trial(chains.con) == "c"  # b's producer outcome does not count


def test_document_blocker_says_why_a_run_has_no_document(store: Funnels) -> None:
    assert document_blocker(store.con, "blocked") == "suiteIdMissing"
    assert document_blocker(store.con, "run-1") is None
    assert document_blocker(store.con, "no-such-run") is None
