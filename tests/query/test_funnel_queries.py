"""The read side: run listing, funnel rows, documents, and the three absences (§5.10)."""

from __future__ import annotations

import polars as pl
import pytest
from analytics_store import Funnels

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.errors import UsageError
from valuechain.query.funnel import analytics_document, document_keys, funnel_frame
from valuechain.query.runs import runs_frame


def test_runs_lists_every_run_with_its_default_document(store: Funnels) -> None:
    frame = runs_frame(store.con).sort("run_id")
    assert frame["run_id"].to_list() == ["blocked", "old", "run-1"]
    by_run = {r["run_id"]: r for r in frame.iter_rows(named=True)}
    one = by_run["run-1"]
    # c failed (lifecycle `failed` IS includable, Q19); d was cancelled
    assert (one["included_trials"], one["total_trials"]) == (3, 4)
    assert (one["input_tokens"], one["output_tokens"]) == (40, 20)
    assert one["stage_analyzer_version"] == 12 and one["materialization_state"] == "final"
    assert one["excluded_lifecycle"] == 1
    # derived chains only at 11: no document at the current analyzer ⇒ NULL, not zero
    assert by_run["old"]["included_trials"] is None
    assert by_run["blocked"]["document_blocker"] == "suiteIdMissing"
    assert by_run["blocked"]["total_trials"] is None


def test_funnel_frame_rows_rates_and_order(store: Funnels) -> None:
    overall = funnel_frame(store.con, "run-1")
    assert overall["stage"].to_list() == [
        "connection",
        "discovery",
        "selection",
        "call",
        "response",
        "userValue",
    ]
    call = overall.row(3, named=True)
    assert (call["measured"], call["passed"]) == (3, 2)
    assert (call["measured_pass_rate_numerator"], call["measured_pass_rate_denominator"]) == (2, 3)
    assert (call["latency_count"], call["latency_mean_ms"]) == (1, 120.0)
    intents = funnel_frame(store.con, "run-1", slice="intent")
    unlabelled = intents.filter(pl.col("intent").is_null() & (pl.col("stage") == "userValue"))
    row = unlabelled.row(0, named=True)  # only trial c: userValue notMeasured, reach unknown
    assert (row["measured"], row["measured_pass_rate"]) == (0, None)
    assert row["measured_pass_rate_state"] == "notMeasured"
    assert (row["measured_pass_rate_numerator"], row["measured_pass_rate_denominator"]) == (0, 0)
    assert intents["intent"].unique(maintain_order=True).to_list() == ["search", None]
    assert funnel_frame(store.con, "run-1", slice="all").height == 6 * 5


def test_selecting_chains_never_mixes_them(store: Funnels) -> None:
    assert document_keys(store.con, "run-1") == [("derived", 12), ("producer", 12)]
    producer = analytics_document(store.con, "run-1", chains="producer")
    assert producer is not None
    assert (producer.stage_analyzer_version, producer.included_trials) == (11, 1)
    old = analytics_document(store.con, "old", analyzer=11)
    assert old is not None and old.stage_analyzer_version == 11
    assert funnel_frame(store.con, "old", analyzer=11).height == 6


def test_three_absences_stay_distinct(store: Funnels) -> None:
    with pytest.raises(UsageError, match="no such run"):
        analytics_document(store.con, "nope")
    with pytest.raises(UsageError, match="no such run"):
        funnel_frame(store.con, "nope")
    assert analytics_document(store.con, "old") is None  # exists, no document at 12
    empty = funnel_frame(store.con, "old")
    assert empty.is_empty() and "measured_pass_rate" in empty.columns


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"slice": "case"}, "unknown slice"),
        ({"chains": "mixed"}, "unknown chain source"),
        ({"analyzer": 0}, "not an analyzer version"),
        ({"chains": "producer", "analyzer": 11}, "current analyzer only"),
    ],
)
def test_bad_arguments_are_usage_errors(
    store: Funnels, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        funnel_frame(store.con, "run-1", **kwargs)  # type: ignore[arg-type]


def test_documents_round_trip_byte_for_byte(store: Funnels) -> None:
    text = store.text()
    doc = analytics_document(store.con, "run-1")
    assert isinstance(doc, StageAnalyticsV1) and doc.to_json() == text


def test_rates_view_never_sums_across_stages_or_runs(store: Funnels) -> None:
    """Every funnel row belongs to one (run, chains, version, slice, stage)."""
    frame = pl.from_arrow(
        store.con.sql(
            "SELECT run_id, chain_source, analyzer_version, slice_index, stage_index, "
            "count(*) AS n FROM stage_rates GROUP BY ALL HAVING count(*) > 1"
        ).to_arrow_table()
    )
    assert isinstance(frame, pl.DataFrame) and frame.is_empty()
