"""CONTRACT §8.2: every stage-analytics example end to end through the SQL path.

Each example writes core.* rows directly (`analytics_store.TrialSpec`), runs
`materialize_runs`, and reads the stored document back (validated by the strict model and
checked to be in canonical form by the `funnels` fixture). §8.2's fixture: completed trials,
chains all passed, verified chain and measurements derived from the chain, analyzer = the
reader's, all three identities.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from analytics_store import NOW_MS, Funnels, SetupCopy, TrialSpec

from valuechain.contract.documents import StageAnalyticsV1
from valuechain.contract.rates import (
    measured_pass_rate,
    measurement_coverage_rate,
    reach_rate,
    stage_rate,
)
from valuechain.contract.tallies import StageTally
from valuechain.contract.vocab import ParityBlocker
from valuechain.materialize.analytics import drop_temp_tables, parameters
from valuechain.query.parity import stage_analytics_parity_blockers
from valuechain.store import sqlfiles


def tally_of(doc: dict[str, Any], stage: str, slice_index: int = 0) -> StageTally:
    row = doc["slices"][slice_index]
    return StageTally.model_validate(next(t for t in row["stages"] if t["stage"] == stage))


def rate_json(rate: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(rate.model_dump_json(by_alias=True))
    return out


# --- A1 --------------------------------------------------------------------------------


def test_a1_zero_trials_document_is_valid_and_unmeasured(funnels: Funnels) -> None:
    """A1. A run cannot exist in the store without trials, so the document tail of the SQL
    path runs on a document with none: one overall slice, zeros, every rate notMeasured."""
    con = funnels.con
    params = parameters(["run-0"], NOW_MS)
    statements = [s for s in sqlfiles.folder("analytics") if s.name < "analytics/200_"]
    for sql in statements:
        if sql.name.startswith("analytics/060_"):
            con.execute(
                "INSERT INTO a_run_facts (run_id, suite_id, run_terminal, trial_rows, "
                "completed_at_exported, conflicting_identity) "
                "VALUES ('run-0', 'suite-1', true, 0, false, [])"
            )
            con.execute("INSERT INTO a_docs VALUES (1, 'run-0', 'derived', 12)")
        con.execute(sql.text, sql.bind(params))
    text = con.execute("SELECT document FROM a_documents").fetchall()[0][0]
    drop_temp_tables(con)
    doc = StageAnalyticsV1.from_json(text)
    assert doc.to_json() == text
    assert [s.slice.dimension for s in doc.slices] == ["overall"]
    assert doc.total_trials == 0 and doc.included_trials == 0 and doc.setup == []
    assert doc.stage_analyzer_version == 12 and doc.measurements_schema_version == 1
    for tally in doc.slices[0].stages:
        assert tally.applicable == tally.reached == tally.measured == 0
        for rate in (
            reach_rate(tally),
            measured_pass_rate(tally),
            measurement_coverage_rate(tally),
        ):
            assert rate.state == "notMeasured" and rate.value is None


# --- A2–A5: tallies and rates ---------------------------------------------------------------


def test_a2_reach_unknown_is_not_a_drop_off(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", chain="P,P,P,F,NR,NR"),
        TrialSpec("b", chain="P,P,P,P,NM,P"),
        TrialSpec("c"),
    ).materialize()
    response = tally_of(funnels.doc(), "response")
    assert (
        response.applicable,
        response.reached,
        response.not_reached,
        response.reach_unknown,
    ) == (3, 1, 1, 1)
    assert rate_json(reach_rate(response)) == {
        "state": "measured",
        "value": 0.5,
        "numerator": 1,
        "denominator": 2,
        "exclusions": {"reachUnknown": 1},
    }
    view = funnels.con.execute(
        "SELECT reach_rate, reach_rate_state, reach_rate_numerator, reach_rate_denominator "
        "FROM stage_rates WHERE slice_index = 0 AND stage = 'response'"
    ).fetchall()
    assert view == [(0.5, "measured", 1, 2)]


def test_a3_reached_but_undecided_lowers_coverage(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a"),
        TrialSpec("b", chain="P,P,P,P,P,NM:judgePending", reach={5: "reached"}),
    ).materialize()
    user_value = tally_of(funnels.doc(), "userValue")
    assert (user_value.reached, user_value.measured, user_value.not_measured) == (2, 1, 1)
    coverage = measurement_coverage_rate(user_value)
    assert (coverage.state, coverage.value) == ("measured", 0.5)


def test_a4_measured_pass_rate(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", chain="P,P,P,F,NR,NR"), TrialSpec("b")).materialize()
    rate = measured_pass_rate(tally_of(funnels.doc(), "call"))
    assert (rate.numerator, rate.denominator, rate.value) == (1, 2, 0.5)


def test_a5_not_applicable_is_excluded_not_passed(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", chain="P,P,P,P,P,NA")).materialize()
    user_value = tally_of(funnels.doc(), "userValue")
    assert (user_value.applicable, user_value.not_applicable) == (0, 1)
    assert user_value.excluded.counts() == {"notApplicable": 1}
    assert reach_rate(user_value).state == "notMeasured"


# --- A6–A9: classification -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "detail"),
    [
        ("pending", "notTerminal"),
        ("running", "notTerminal"),
        ("skipped", "skipped"),
        ("cancelled", "cancelled"),
        ("setup_failed", "setupFailed"),
        ("timed_out", "timedOut"),
        ("weird", "executionFailed"),
        (None, "executionFailed"),
    ],
)
def test_a6_lifecycle_exclusions(funnels: Funnels, status: str | None, detail: str) -> None:
    funnels.add(TrialSpec("a", status=status)).materialize()
    doc = funnels.doc()
    assert doc["includedTrials"] == 0
    assert doc["excludedTrials"] == {"lifecycle": 1}
    assert doc["excludedTrialDetail"] == {detail: 1}
    assert doc["slices"][0]["excludedTrials"] == {"lifecycle": 1}
    assert all(t["applicable"] == 0 and t["reasons"] == [] for t in doc["slices"][0]["stages"])


@pytest.mark.parametrize(
    ("spec", "cls", "detail"),
    [
        (TrialSpec("a", chain=None), "integrity", "chainMissing"),
        (TrialSpec("a", chain_verified=None), "integrity", "chainUnverified"),
        (TrialSpec("a", chain_verified=False), "integrity", "chainUnverified"),
        (TrialSpec("a", outcome=False), "integrity", "chainUnverified"),
        (TrialSpec("a", measurements=False), "integrity", "measurementsMissing"),
        (TrialSpec("a", measurements_verified=False), "integrity", "measurementsInvalid"),
        (TrialSpec("a", measurements_verified=None), "integrity", "measurementsInvalid"),
        # the producer said verified, valuechain's own check found them disagreeing (§7.4)
        (TrialSpec("a", measurements_agree=False), "integrity", "measurementsInvalid"),
        (TrialSpec("a", measurements_analyzer=11), "integrity", "analyzerMismatch"),
        (TrialSpec("a", measurements_schema=2), "version", "measurementsVersionAhead"),
        (TrialSpec("a", exclusion_class="integrity"), "integrity", "chainUnverified"),
        (TrialSpec("a", exclusion_class="version", chain=None), "version", "chainVersionAhead"),
    ],
)
def test_a7_integrity_and_version(funnels: Funnels, spec: TrialSpec, cls: str, detail: str) -> None:
    funnels.add(spec).materialize()
    doc = funnels.doc()
    assert (doc["includedTrials"], doc["excludedTrials"]) == (0, {cls: 1})
    assert doc["excludedTrialDetail"] == {detail: 1}


def test_a7_measurements_that_agree_are_included(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", measurements_agree=True)).materialize()
    assert (funnels.doc()["includedTrials"], funnels.doc()["excludedTrials"]) == (1, {})


def test_a7_version_ahead_chain_is_excluded_by_the_reader(funnels: Funnels) -> None:
    """A7 (analyzer reader+1). Derived chains are read at their own version, so a chain ahead
    of the reader is a producer chain, read at the current analyzer (12)."""
    funnels.add(TrialSpec("a", source="producer", analyzer=13)).materialize()
    doc = funnels.doc(chains="producer")
    assert doc["excludedTrials"] == {"version": 1}
    assert doc["excludedTrialDetail"] == {"chainVersionAhead": 1}
    assert doc["stageAnalyzerVersion"] == 12  # nothing included: the reader's own


def test_a7_evaluator_error_never_counts_as_a_server_failure(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", chain="P,P,P,F,NR,NR", evaluator_errored=True)).materialize()
    doc = funnels.doc()
    assert doc["excludedTrialDetail"] == {"evaluatorError": 1}
    assert tally_of(doc, "call").failed == 0


def test_a8_lifecycle_comes_before_integrity(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", status="cancelled", chain=None, outcome=False)).materialize()
    assert funnels.doc()["excludedTrialDetail"] == {"cancelled": 1}


def test_a9_excluded_trials_leave_every_denominator(funnels: Funnels) -> None:
    funnels.add(TrialSpec("good"), TrialSpec("gone", status="cancelled")).materialize()
    doc = funnels.doc()
    assert measured_pass_rate(tally_of(doc, "call")).denominator == 1
    assert (doc["totalTrials"], doc["includedTrials"]) == (2, 1)
    assert doc["slices"][0]["excludedTrials"] == {"lifecycle": 1}


def test_duplicate_trial_id_rows_are_both_integrity_excluded(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", trace="t1"), TrialSpec("a", trace="t2", chain=None, outcome=False))
    funnels.materialize()
    doc = funnels.doc()
    assert doc["totalTrials"] == 2
    assert doc["excludedTrialDetail"] == {"chainUnverified": 2}


# --- A10–A13: slices -----------------------------------------------------------------------


def test_a10_marginal_slices(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", intent="search", provider="anthropic", model="m", host_key="h")
    ).materialize()
    slices = funnels.doc()["slices"]
    assert [s["slice"]["dimension"] for s in slices] == ["overall", "intent", "model", "host"]
    assert [s["includedTrials"] for s in slices] == [1, 1, 1, 1]
    assert slices[2]["slice"] == {"dimension": "model", "provider": "anthropic", "model": "m"}
    assert slices[3]["slice"] == {"dimension": "host", "hostKey": "h"}


def test_a11_unlabelled_intent_is_a_real_slice(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", intent="search"), TrialSpec("b"), TrialSpec("c", intent="  ")
    ).materialize()
    intents = [s for s in funnels.doc()["slices"] if s["slice"]["dimension"] == "intent"]
    assert [s["slice"]["intent"] for s in intents] == ["search", None]
    assert intents[1]["includedTrials"] == 2


def test_a12_model_slices_sort_by_their_json_key(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", provider="a", model="b c"), TrialSpec("b", provider="a b", model="c")
    ).materialize()
    models = [s["slice"] for s in funnels.doc()["slices"] if s["slice"]["dimension"] == "model"]
    assert [[m["provider"], m["model"]] for m in models] == [["a b", "c"], ["a", "b c"]]


def test_a13_intent_cap_is_recorded(funnels: Funnels) -> None:
    funnels.add(*(TrialSpec(f"t{i:02d}", intent=f"intent-{i:02d}") for i in range(60)))
    funnels.materialize()
    doc = funnels.doc()
    assert doc["sliceTruncation"] == [{"dimension": "intent", "distinctValues": 60, "retained": 50}]
    assert doc["includedTrials"] == 60
    intents = [s["slice"]["intent"] for s in doc["slices"] if s["slice"]["dimension"] == "intent"]
    assert intents == [f"intent-{i:02d}" for i in range(50)]  # ties: sort key ascending


def test_caps_keep_the_largest_slices_then_sort_them(funnels: Funnels) -> None:
    trials = [TrialSpec(f"big{i}", intent="zzz") for i in range(3)]
    trials += [TrialSpec(f"t{i:02d}", intent=f"i{i:02d}") for i in range(55)]
    funnels.add(*trials).materialize()
    intents = [
        s["slice"]["intent"] for s in funnels.doc()["slices"] if s["slice"]["dimension"] == "intent"
    ]
    assert intents == [f"i{i:02d}" for i in range(49)] + ["zzz"]


# --- A14–A15: latency ----------------------------------------------------------------------


def test_a14_latency_aggregate(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", latency={3: 100}), TrialSpec("b", latency={3: 300})).materialize()
    call = tally_of(funnels.doc(), "call")
    assert call.model_dump(by_alias=True, mode="json")["latency"] == {
        "unit": "ms",
        "basis": "evidence_span_union",
        "sampleCount": 2,
        "totalMs": 400,
        "minMs": 100,
        "maxMs": 300,
    }
    assert call.latency.mean_ms == 200  # type: ignore[union-attr]


def test_a15_misplaced_measurement_row_gives_no_latency(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("a", latency={2: 400, 3: 400}, measurement_stage={3: "selection"})
    ).materialize()
    doc = funnels.doc()
    assert "latency" not in next(t for t in doc["slices"][0]["stages"] if t["stage"] == "call")
    selection = next(t for t in doc["slices"][0]["stages"] if t["stage"] == "selection")
    assert selection["latency"]["totalMs"] == 400


# --- A16–A18: setup ------------------------------------------------------------------------


def test_a16_one_attempt_five_impacted_trials(funnels: Funnels) -> None:
    funnels.add(*(TrialSpec(f"i{i}") for i in range(5)))
    funnels.setup(
        *(
            SetupCopy(
                f"i{i}",
                outcome="failed",
                attribution="theirs",
                egress_verified=True,
                duration_ms=3000,
            )
            for i in range(5)
        )
    )
    funnels.materialize()
    assert funnels.doc()["setup"] == [
        {
            "phase": "connection",
            "uniqueAttempts": 1,
            "failedAttempts": 1,
            "serverAttributedFailures": 1,
            "impactedTrials": 5,
            "latency": {
                "unit": "ms",
                "basis": "setup_phase_wall",
                "sampleCount": 1,
                "totalMs": 3000,
                "minMs": 3000,
                "maxMs": 3000,
            },
        }
    ]


@pytest.mark.parametrize("reverse", [False, True])
def test_a17_copies_that_disagree_on_duration_give_no_latency(
    funnels: Funnels, reverse: bool
) -> None:
    copies = [
        SetupCopy("a", duration_ms=100),
        SetupCopy(
            "b", outcome="failed", attribution="theirs", egress_verified=True, duration_ms=3000
        ),
    ]
    funnels.add(TrialSpec("a"), TrialSpec("b")).setup(*(copies[::-1] if reverse else copies))
    funnels.materialize()
    (setup,) = funnels.doc()["setup"]
    assert (setup["failedAttempts"], setup["impactedTrials"]) == (1, 1)
    assert "latency" not in setup


def test_a18_failed_copies_must_agree_to_blame_the_server(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a"), TrialSpec("b")).setup(
        SetupCopy("a", outcome="failed", attribution="theirs", egress_verified=True),
        SetupCopy("b", outcome="failed", attribution="ours", egress_verified=True),
    ).materialize()
    (setup,) = funnels.doc()["setup"]
    assert (setup["failedAttempts"], setup["serverAttributedFailures"]) == (1, 0)


# --- A19–A22: versions, rates, parity ------------------------------------------------------


def test_a19_version_stamping_and_mixed_source_versions(funnels: Funnels) -> None:
    funnels.add(
        TrialSpec("old", run_id="uniform", source="producer", analyzer=11),
        TrialSpec("old", run_id="mixed", source="producer", analyzer=11),
        TrialSpec("new", run_id="mixed", source="producer", analyzer=12),
    ).materialize()
    uniform = funnels.doc("uniform", chains="producer")
    mixed = funnels.doc("mixed", chains="producer")
    assert uniform["stageAnalyzerVersion"] == 11 and "sourceStageAnalyzerVersions" not in uniform
    assert (mixed["stageAnalyzerVersion"], mixed["sourceStageAnalyzerVersions"]) == (12, [11, 12])
    m = StageAnalyticsV1.model_validate(mixed)
    u = StageAnalyticsV1.model_validate(uniform)
    assert ParityBlocker.MIXED_SOURCE_VERSIONS in stage_analytics_parity_blockers(m, m)
    assert stage_analytics_parity_blockers(u, u) == []


def test_a19_older_derived_chains_are_read_at_their_own_version(funnels: Funnels) -> None:
    funnels.add(TrialSpec("a", analyzer=11)).materialize()
    doc = funnels.doc(analyzer=11)
    assert (doc["stageAnalyzerVersion"], doc["includedTrials"]) == (11, 1)
    keys = funnels.con.execute(
        "SELECT chain_source, analyzer_version FROM analytics_documents"
    ).fetchall()
    assert keys == [("derived", 11)]  # no derived document at 12 without derived chains at 12


@pytest.mark.parametrize(("measured_at", "included"), [(11, True), (13, False)])
def test_a20_measurements_version_stands_in_for_an_absent_chain_version(
    funnels: Funnels, measured_at: int, included: bool
) -> None:
    """A20. The store keeps a producer chain that carried no top-level version under its
    measurements' version — the reference's own fallback (§5.4 step 3)."""
    funnels.add(TrialSpec("a", source="producer", analyzer=measured_at)).materialize()
    doc = funnels.doc(chains="producer")
    if included:
        assert (doc["includedTrials"], doc["stageAnalyzerVersion"]) == (1, 11)
    else:
        assert doc["excludedTrialDetail"] == {"chainVersionAhead": 1}


def test_a21_stage_rate() -> None:
    assert stage_rate(5, 4).state == "notMeasured"
    assert stage_rate(-1, 4).state == "notMeasured"
    assert (stage_rate(1, 4).state, stage_rate(1, 4).value) == ("measured", 0.25)
    assert rate_json(stage_rate(0, 0)) == {
        "state": "notMeasured",
        "value": None,
        "numerator": 0,
        "denominator": 0,
        "exclusions": {},
    }
    assert stage_rate(True, 4).state == "notMeasured"  # a bool is not a JS number (§0.2)


@pytest.mark.parametrize(
    ("field", "blocker"),
    [
        ("run_group_id", ParityBlocker.MISSING_RUN_GROUP),
        ("config_revision", ParityBlocker.MISSING_CONFIG_IDENTITY),
        ("case_set_fingerprint", ParityBlocker.MISSING_CASE_SET_IDENTITY),
    ],
)
@pytest.mark.parametrize("both", [False, True])
def test_a22_an_absent_identity_blocks_parity(
    funnels: Funnels, field: str, blocker: ParityBlocker, both: bool
) -> None:
    absent: dict[str, Any] = {field: None}
    funnels.add(TrialSpec("a", run_id="with"), replace(TrialSpec("b", run_id="without"), **absent))
    if both:
        funnels.add(replace(TrialSpec("c", run_id="also-without"), **absent))
    funnels.materialize()
    left = StageAnalyticsV1.model_validate(funnels.doc("also-without" if both else "with"))
    right = StageAnalyticsV1.model_validate(funnels.doc("without"))
    blockers = stage_analytics_parity_blockers(left, right)
    assert blocker in blockers
    different = ParityBlocker(blocker.value.replace("missing", "different"))
    assert different not in blockers
