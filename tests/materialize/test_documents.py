"""The strict `EvalStageAnalyticsV1` model (CONTRACT §5): what it refuses, what it writes."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from valuechain.contract.documents import (
    STAGE_ANALYTICS_SCHEMA_ID,
    StageAnalyticsV1,
    stage_analytics_json_schema,
)
from valuechain.materialize import validation
from valuechain.materialize.analytics import parameters
from valuechain.materialize.validation import validate_documents

STAGES = ("connection", "discovery", "selection", "call", "response", "userValue")


def tally(stage: str, **counts: Any) -> dict[str, Any]:
    base = {
        "stage": stage,
        "applicable": 1,
        "reached": 1,
        "notReached": 0,
        "reachUnknown": 0,
        "measured": 1,
        "passed": 1,
        "failed": 0,
        "notMeasured": 0,
        "notApplicable": 0,
        "excluded": {},
        "reasons": [{"reason": "observed", "count": 1}],
    }
    base.update(counts)
    return base


def document() -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "measurementUnit": "trial",
        "runId": "r",
        "suiteId": "s",
        "sourceIterationCount": 2,
        "stageAnalyzerVersion": 12,
        "measurementsSchemaVersion": 1,
        "materializationState": "final",
        "createdAt": 1,
        "updatedAt": 2,
        "includedTrials": 1,
        "excludedTrials": {"lifecycle": 1},
        "totalTrials": 2,
        "excludedTrialDetail": {"cancelled": 1},
        "slices": [
            {
                "slice": {"dimension": "overall"},
                "includedTrials": 1,
                "excludedTrials": {"lifecycle": 1},
                "failureCategories": [],
                "stages": [tally(s) for s in STAGES],
            }
        ],
        "setup": [],
    }


def edit(path: str, value: Any) -> dict[str, Any]:
    """A copy of `document()` with ``value`` at each dotted path (``a|b`` edits both;
    ``...`` deletes)."""
    doc = copy.deepcopy(document())
    for one in path.split("|"):
        *parents, last = one.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        index: Any = int(last) if last.isdigit() else last
        if value is ...:
            del node[index]
        else:
            node[index] = value
    return doc


def test_a_valid_document_round_trips_byte_for_byte() -> None:
    text = json.dumps(document(), separators=(",", ":"), ensure_ascii=False)
    assert StageAnalyticsV1.from_json(text).to_json() == text


def test_integral_floats_print_like_json_stringify() -> None:
    doc = edit(
        "slices.0.stages.3.latency",
        {
            "unit": "ms",
            "basis": "evidence_span_union",
            "sampleCount": 1,
            "totalMs": 5.0,
            "minMs": 5.0,
            "maxMs": 5.0,
        },
    )
    assert '"totalMs":5,' in StageAnalyticsV1.model_validate(doc).to_json()


REFUSALS: list[tuple[str, Any, str]] = [
    ("extra", 1, "Extra inputs"),
    ("runGroupId", None, "string"),
    ("runGroupId", "", "at least 1"),
    ("excludedTrials.lifecycle", 0, "greater than or equal to 1"),
    ("totalTrials", True, "integer"),
    ("totalTrials", 2.0, "integer"),
    ("measurementUnit", "caseVariant", "trial"),
    ("schemaVersion", 2, "1"),
    ("slices.0.stages.0.measured", 0, "passed \\+ failed"),
    ("slices.0.stages.0.reached", 0, "measured \\+ notMeasured"),
    ("slices.0.stages.0.applicable", 2, "reached \\+ notReached"),
    ("slices.0.stages.0.excluded", {"notMeasured": 1}, "excluded must count"),
    (
        "slices.0.stages.0.reasons",
        [{"reason": "observed", "count": 1}, {"reason": "noSpanChannel", "count": 1}],
        "vocabulary",
    ),
    ("slices.0.stages.0.reasons", [{"reason": "madeUp", "count": 1}], "reason"),
    ("slices.0.stages.5", tally("call"), "stage order"),
    ("slices.0.stages.5", ..., "at least 6"),
    (
        "slices.0.stages.3.latency",
        {
            "unit": "ms",
            "basis": "evidence_span_union",
            "sampleCount": 2,
            "totalMs": 1,
            "minMs": 1,
            "maxMs": 1,
        },
        "outside",
    ),
    (
        "slices.0.stages.3.latency",
        {
            "unit": "ms",
            "basis": "setup_phase_wall",
            "sampleCount": 1,
            "totalMs": 1,
            "minMs": 1,
            "maxMs": 1,
        },
        "evidence_span_union",
    ),
    ("slices.0.slice", {"dimension": "intent", "intent": None}, "overall"),
    ("slices.0.includedTrials", 2, "overall slice"),
    ("slices.0.includedTrials|includedTrials", 3, "exceeds totalTrials"),
    ("excludedTrialDetail", {"chainMissing": 1}, "add up"),
    ("excludedTrialDetail", {}, "add up"),
    ("sourceIterationCount", 3, "sourceIterationCount"),
    ("sourceStageAnalyzerVersions", [12], "at least two"),
    ("sourceStageAnalyzerVersions", [12, 11], "ascending"),
    ("sliceTruncation", [], "at least 1"),
    (
        "setup",
        [
            {
                "phase": "connection",
                "uniqueAttempts": 1,
                "failedAttempts": 2,
                "serverAttributedFailures": 0,
                "impactedTrials": 0,
            }
        ],
        "failedAttempts",
    ),
    (
        "setup",
        [
            {
                "phase": "discovery",
                "uniqueAttempts": 1,
                "failedAttempts": 0,
                "serverAttributedFailures": 0,
                "impactedTrials": 0,
            },
            {
                "phase": "connection",
                "uniqueAttempts": 1,
                "failedAttempts": 0,
                "serverAttributedFailures": 0,
                "impactedTrials": 0,
            },
        ],
        "phase order",
    ),
]


def stage_latency(n: int, total: float, lo: float, hi: float, basis: str) -> dict[str, Any]:
    return {
        "unit": "ms",
        "basis": basis,
        "sampleCount": n,
        "totalMs": total,
        "minMs": lo,
        "maxMs": hi,
    }


def setup(**counts: Any) -> list[dict[str, Any]]:
    base = {
        "phase": "connection",
        "uniqueAttempts": 1,
        "failedAttempts": 0,
        "serverAttributedFailures": 0,
        "impactedTrials": 0,
    }
    return [{**base, **counts}]


def slice_row(slice_: dict[str, Any]) -> dict[str, Any]:
    return {**document()["slices"][0], "slice": slice_}


OVERALL, HOST = {"dimension": "overall"}, {"dimension": "host", "hostKey": "h"}
EVIDENCE, WALL = "evidence_span_union", "setup_phase_wall"

# Rules of the model's validators the table above does not reach; each is a rule of the
# bulk check's set-based statement too (sql/check/030_document_invariants.sql).
BULK_REFUSALS: list[tuple[str, Any, str]] = [
    ("slices.0.stages.3.latency", stage_latency(2, 2, 1, 1, EVIDENCE), "exceeds reached"),
    ("slices.0.stages.3.latency", stage_latency(1, 1, 2, 1, EVIDENCE), "exceeds maxMs"),
    (
        "slices.0.stages.0",
        tally("connection", notApplicable=1, excluded={"notApplicable": 1}),
        "counts more trials than were included",
    ),
    ("slices.0.excludedTrials", {"lifecycle": 1, "notMeasured": 1}, "lifecycle, integrity"),
    ("slices.0.excludedTrials", {"integrity": 1}, "excludedTrials differs"),
    (
        "slices.0.failureCategories",
        [{"category": "selection", "count": 1}, {"category": "setup", "count": 1}],
        "vocabulary order",
    ),
    ("slices.0.failureCategories", [{"category": "setup", "count": 2}], "more trials"),
    ("setup", setup(serverAttributedFailures=1), "serverAttributedFailures exceeds"),
    ("setup", setup(latency=stage_latency(2, 2, 1, 1, WALL)), "sampleCount exceeds unique"),
    ("setup", setup(latency=stage_latency(1, 5, 1, 1, WALL)), "outside"),
    ("totalTrials|sourceIterationCount", 3, "must equal totalTrials"),
    (
        "slices",
        [slice_row(OVERALL), slice_row(HOST), slice_row({"dimension": "intent", "intent": "x"})],
        "emitted",
    ),
    (
        "slices",
        [slice_row(OVERALL)] + [slice_row({"dimension": "intent", "intent": None})] * 51,
        "more than 50 intent",
    ),
    ("sourceMeasurementsSchemaVersions", [1, 1], "ascending"),
    ("slices.0.stages.2.reasons", [{"reason": "observed", "count": 1}] * 2, "without repeats"),
]


@pytest.mark.parametrize(("path", "value", "message"), REFUSALS)
def test_the_model_refuses(path: str, value: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        StageAnalyticsV1.model_validate(edit(path, value))


def bulk_validate(*docs: dict[str, Any]) -> int:
    """The materialization's bulk check over ``docs``, as rows of ``a_documents``."""
    con = duckdb.connect()
    con.execute(
        "CREATE TEMP TABLE a_documents (doc_id BIGINT, run_id VARCHAR, chain_source VARCHAR,"
        " analyzer_version INTEGER, document VARCHAR)"
    )
    for i, doc in enumerate(docs):
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        con.execute("INSERT INTO a_documents VALUES (?, 'r', 'derived', 12, ?)", [i, text])
    return validate_documents(con, parameters(None, 0))


def test_the_bulk_check_accepts_what_the_model_accepts() -> None:
    latency = {"unit": "ms", "basis": "evidence_span_union", "sampleCount": 1}
    fractional = edit(
        "slices.0.stages.3.latency", {**latency, "totalMs": 2.5, "minMs": 2.5, "maxMs": 2.5}
    )
    assert bulk_validate(document(), fractional, edit("runGroupId", "g 1.5e3")) == 3


_PLAIN_FRACTIONAL = re.compile(r'"(\w+)":-?[0-9]+[.eE]')


@settings(max_examples=400)
@given(
    st.lists(
        st.sampled_from(['"', "\\", ":", "a", "é", "1", ".", "e", "E", "-", "{", ",", " "])
        | st.sampled_from(['"totalMs"', '"minMs":', '"n":', '"a b":', ":1.5", ":-2e3"]),
        max_size=24,
    ).map("".join)
)
def test_the_fraction_scan_flags_what_the_plain_pattern_flags(text: str) -> None:
    """The fast scan (`":` and a number, the key read back) finds a key other than a
    millisecond one before a fractional number exactly when `"(\\w+)":-?[0-9]+[.eE]` does."""
    plain = any(
        m.group(1) not in {"totalMs", "minMs", "maxMs"} for m in _PLAIN_FRACTIONAL.finditer(text)
    )
    assert validation._fraction_outside_millis(text) is plain


@pytest.mark.parametrize(("path", "value", "message"), REFUSALS + BULK_REFUSALS)
def test_the_bulk_check_refuses_with_the_models_error(path: str, value: Any, message: str) -> None:
    """Every document the model refuses, the bulk check refuses too, with the model's error
    (the refused document is re-validated by the model), even behind a valid one."""
    with pytest.raises(ValidationError, match=message):
        bulk_validate(document(), edit(path, value))
    with pytest.raises(ValidationError, match=message):
        StageAnalyticsV1.model_validate(edit(path, value))


@pytest.mark.parametrize("per_statement", [1, 2, 1000])
def test_the_invariants_are_checked_over_every_slice_of_documents(
    per_statement: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The set-based rules run a slice of documents at a time: a document refused in the
    last slice is refused as in the first."""
    monkeypatch.setattr(validation, "CHECK_DOCUMENTS", per_statement)
    assert bulk_validate(document(), document(), document()) == 3
    broken = edit("slices.0.excludedTrials", {"integrity": 1})
    with pytest.raises(ValidationError, match="excludedTrials differs"):
        bulk_validate(document(), document(), broken)


def test_json_schema_is_generated_from_the_model() -> None:
    schema = stage_analytics_json_schema()
    assert schema["$id"] == STAGE_ANALYTICS_SCHEMA_ID
    assert schema["additionalProperties"] is False
    assert "runGroupId" in schema["properties"] and "runGroupId" not in schema["required"]
    assert {"runId", "suiteId", "slices", "setup", "excludedTrialDetail"} <= set(schema["required"])
    text = json.dumps(schema)
    # only the intent of an intent slice may be null (absent keys are omitted, never null)
    assert text.count('"type": "null"') == 1
    assert '"ge"' not in text


def test_a_refusal_the_model_does_not_share_is_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validation, "shape_problem", lambda document: "made up")
    with pytest.raises(RuntimeError, match=r"run r \(derived chains, analyzer 12\).*made up"):
        bulk_validate(document())


def _numeric_paths(node: Any, prefix: str = "") -> list[str]:
    """Dotted paths of every integer leaf of a document (the counts the rules relate)."""
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return [prefix[:-1]] if type(node) is int else []
    return [p for key, value in items for p in _numeric_paths(value, f"{prefix}{key}.")]


def _rich_document() -> dict[str, Any]:
    """`document()` with a latency, a setup phase and a failure category, so every rule has
    numbers to relate."""
    doc = edit("slices.0.stages.3.latency", stage_latency(1, 4, 4, 4, EVIDENCE))
    doc["setup"] = setup(uniqueAttempts=2, failedAttempts=1, serverAttributedFailures=1)
    doc["slices"][0]["failureCategories"] = [{"category": "setup", "count": 1}]
    return doc


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_bulk_check_and_the_model_agree_on_any_count(data: st.DataObject) -> None:
    """Change one to three counts anywhere: the bulk check refuses exactly when the model does."""
    doc = _rich_document()
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_numeric_paths(doc)))
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = data.draw(st.integers(0, 3))
    try:
        StageAnalyticsV1.model_validate(doc)
        refused = None
    except ValidationError as error:
        refused = [(e["loc"], e["msg"]) for e in error.errors()]
    if refused is None:
        assert bulk_validate(doc) == 1
    else:
        with pytest.raises(ValidationError) as bulk:
            bulk_validate(doc)
        assert [(e["loc"], e["msg"]) for e in bulk.value.errors()] == refused
