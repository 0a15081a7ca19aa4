"""Trends (issue 13 point 3): partitions by parity keys, blocked and unmeasured runs, nulls."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import polars as pl
import pytest
from analytics_store import Funnels
from trend_store import many_runs_store

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.vocab_rules import STAGES
from valuechain.errors import UsageError
from valuechain.query.parity import stage_analytics_parity_blockers
from valuechain.query.trend import (
    PARTITION_KEY,
    parse_since,
    runs_outside_partitions,
    trend_frame,
    trend_request,
)


def series(funnels: Funnels, **kwargs: Any) -> pl.DataFrame:
    return trend_frame(funnels.con, trend_request(**kwargs))


def outside(funnels: Funnels, **kwargs: Any) -> dict[str, list[str] | None]:
    frame = runs_outside_partitions(funnels.con, trend_request(**kwargs))
    return {r["run_id"]: r["blockers"] for r in frame.iter_rows(named=True)}


def partitions(frame: pl.DataFrame) -> dict[tuple[Any, ...], list[str]]:
    """Each partition key → its runs in the order the trend gives them."""
    out: dict[tuple[Any, ...], list[str]] = {}
    for row in frame.iter_rows(named=True):
        runs = out.setdefault(tuple(row[c] for c in PARTITION_KEY), [])
        if row["run_id"] not in runs:
            runs.append(row["run_id"])
    return out


def test_runs_are_partitioned_by_the_five_keys_and_ordered_by_completion(
    trends: Funnels,
) -> None:
    assert partitions(series(trends)) == {
        ("group-1", "config-1", "cases-1", 12, 1): ["z-first", "m-second", "a-third"],
        ("group-1", "config-2", "cases-1", 12, 1): ["cfg2-a", "cfg2-b"],
        ("group-2", "config-1", "cases-1", 12, 1): ["other"],
        # producer chains only: its derived document includes no trial (chainMissing)
        ("group-m", "config-1", "cases-1", 12, 1): ["mixed"],
    }
    # every run's own six stages, in stage order: nothing merged, nothing summed
    frame = series(trends)
    assert frame.height == 7 * 6
    first = frame.filter(pl.col("run_id") == "z-first")
    assert first["stage"].to_list() == [s.value for s in STAGES]
    call = first.row(3, named=True)
    assert (call["measured_pass_rate_numerator"], call["measured_pass_rate_denominator"]) == (1, 2)
    assert call["measured_pass_rate"] == 0.5 and call["measured_pass_rate_state"] == "measured"


def test_trend_rows_are_the_runs_own_funnel_rows(trends: Funnels) -> None:
    """A trend row equals its run's `stage_rates` row: a series, never an aggregate."""
    mismatched = trends.con.sql(
        "SELECT count(*) FROM stage_trend t JOIN stage_rates r USING "
        "(run_id, chain_source, analyzer_version, slice_index, stage_index) "
        "WHERE t.measured_pass_rate_numerator <> r.measured_pass_rate_numerator "
        "OR t.measured_pass_rate_denominator <> r.measured_pass_rate_denominator "
        "OR t.reach_rate_denominator <> r.reach_rate_denominator "
        "OR t.measurement_coverage_rate_numerator <> r.measurement_coverage_rate_numerator"
    ).fetchall()
    assert mismatched == [(0,)]


def test_not_measured_stays_null_never_zero(trends: Funnels) -> None:
    row = (
        series(trends, stage="userValue").filter(pl.col("run_id") == "m-second").row(0, named=True)
    )
    assert row["measured_pass_rate"] is None
    assert row["measured_pass_rate_state"] == "notMeasured"
    assert (row["measured_pass_rate_numerator"], row["measured_pass_rate_denominator"]) == (0, 0)
    # reach unknown for both trials: no rate has anything to divide, and says so
    assert (row["reach_rate"], row["measurement_coverage_rate"]) == (None, None)
    assert row["reach_unknown"] == 2
    call = series(trends, stage="call").filter(pl.col("run_id") == "cfg2-a").row(0, named=True)
    assert call["reach_rate"] == 0.0 and call["reach_rate_state"] == "measured"  # a real 0


def test_provisional_and_identity_less_runs_are_listed_with_their_blockers(
    trends: Funnels,
) -> None:
    in_partitions = set(series(trends)["run_id"].to_list())
    assert not in_partitions & {"prov", "nogroup", "bare", "nosuite", "old"}
    assert outside(trends) == {
        "nogroup": ["missingRunGroup"],
        "bare": [
            "missingRunGroup",
            "missingConfigIdentity",
            "missingCaseSetIdentity",
            "provisional",
        ],
        "nosuite": None,  # no document: unmeasured, not blocked
        "old": None,  # derived at 11 only: unmeasured at 12
        "prov": ["provisional"],
    }


def test_unmeasured_runs_say_why_when_the_store_knows(trends: Funnels) -> None:
    frame = runs_outside_partitions(trends.con, trend_request())
    why = dict(zip(frame["run_id"], frame["document_blocker"], strict=True))
    assert why["nosuite"] == "suiteIdMissing" and why["old"] is None


def test_another_analyzer_or_chain_source_gives_its_own_partitions(trends: Funnels) -> None:
    assert partitions(series(trends, analyzer=11)) == {
        ("group-1", "config-1", "cases-1", 11, 1): ["old"]
    }
    assert partitions(series(trends, chains="producer")) == {
        ("group-1", "config-1", "cases-1", 12, 1): ["z-first"]
    }
    # producer chains at 11 and 12 in one run: mixed versions block it even against itself
    assert outside(trends, chains="producer")["mixed"] == ["mixedSourceVersions"]


def test_self_blockers_from_the_flat_facts_equal_the_documents_own(trends: Funnels) -> None:
    """The trend reads a run's parity facts from the flat tables; the parity macro over the
    stored document, and the Python function over the parsed one, must agree with them."""
    rows = trends.con.sql(
        "SELECT f.self_blockers, core.identity_parity_blockers("
        "core.parity_identity(d.document), core.parity_identity(d.document)), "
        "d.document FROM core.document_parity_facts f JOIN core.analytics_documents d "
        "USING (run_id, chain_source, analyzer_version)"
    ).fetchall()
    assert len(rows) >= 12
    for facts, from_document, text in rows:
        document = StageAnalyticsV1.from_json(text)
        in_python = [b.value for b in stage_analytics_parity_blockers(document, document)]
        assert facts == from_document == in_python, document.run_id


@pytest.mark.parametrize(
    ("kwargs", "runs"),
    [
        ({"suite": "suite-2"}, {"other"}),
        ({"suite": "nope"}, set()),
        ({"since": "2026-01-04"}, {"cfg2-b", "other"}),
        ({"since": datetime(2026, 1, 3, 12, tzinfo=UTC)}, {"cfg2-b", "other"}),
        ({"since": "2026-01-03T00:00:00+00:00"}, {"a-third", "cfg2-b", "other"}),
    ],
)
def test_suite_and_since_filter_runs(
    trends: Funnels, kwargs: dict[str, Any], runs: set[str]
) -> None:
    assert set(series(trends, **kwargs)["run_id"].to_list()) == runs


def test_since_filters_the_runs_outside_partitions_too(trends: Funnels) -> None:
    assert set(outside(trends, since="2026-01-03")) == {"prov"}
    assert set(outside(trends, suite="suite-1", since="2026-01-02")) == {
        "nogroup",
        "bare",
        "prov",
    }


def test_stage_and_slice_narrow_the_rows(trends: Funnels) -> None:
    call = series(trends, stage="call")
    assert call["stage"].unique().to_list() == ["call"] and call.height == 7
    intents = series(trends, slice="intent")
    assert intents["slice_dimension"].unique().to_list() == ["intent"]
    assert intents["intent"].null_count() == intents.height  # the unlabelled slice, kept
    assert series(trends, slice="model").is_empty()  # no trial names a provider and model


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"slice": "all"}, "unknown slice"),
        ({"stage": "tool"}, "unknown stage"),
        ({"since": "last week"}, "not a date"),
        ({"chains": "mixed"}, "unknown chain source"),
        ({"analyzer": 0}, "not an analyzer version"),
    ],
)
def test_bad_arguments_are_usage_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        trend_request(**kwargs)


@pytest.mark.parametrize(
    ("since", "expected"),
    [
        ("2026-01-02", datetime(2026, 1, 2, tzinfo=UTC)),
        ("2026-01-02T05:00:00", datetime(2026, 1, 2, 5, tzinfo=UTC)),  # naive means UTC
        ("2026-01-02T05:00:00+02:00", datetime(2026, 1, 2, 3, tzinfo=UTC)),
        (None, None),
    ],
)
def test_since_is_read_as_utc(since: str | None, expected: datetime | None) -> None:
    assert parse_since(since) == expected


def test_a_few_hundred_runs_across_six_partitions() -> None:
    with many_runs_store(300) as funnels:
        frame = series(funnels, stage="call")
        found = partitions(frame)
        assert len(found) == 6
        assert sum(len(runs) for runs in found.values()) == 270  # 30 provisional left out
        blocked = outside(funnels)
        assert len(blocked) == 30 and all(b == ["provisional"] for b in blocked.values())
        assert not set(blocked) & set(frame["run_id"].to_list())
        for runs in found.values():  # completion order, though ids run the other way
            assert runs == sorted(runs, reverse=True)
        # run i passes i % 3 of its 3 call trials: each run keeps its own rate, 0/3 included
        ordinal = {f"run-{300 - i:04d}": i for i in range(300)}
        for row in frame.iter_rows(named=True):
            passed = ordinal[row["run_id"]] % 3
            assert (row["measured_pass_rate_numerator"], row["measured_pass_rate"]) == (
                passed,
                passed / 3,
            )
        user_value = series(funnels, stage="userValue")
        assert user_value["measured_pass_rate"].null_count() == user_value.height == 270
