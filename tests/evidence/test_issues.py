"""Every trial-level issue code of TRACE-FORMAT §5.2 the adapter owns, on a tiny input.

Each test takes trial 1 of the §3.9 example (one trace, nine spans, contract resource),
breaks exactly one thing, and checks the issue (with its pointers) and the trial's hints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
from evidence_builders import (
    FIRST_TRACE,
    codes,
    contract,
    decode,
    drop_attr,
    evidence,
    request,
    resource,
    retrace,
    root,
    set_attr,
    trial_spans,
)

from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.pipeline.derive import load_trials
from valuechain.pipeline.imports import ImportOptions, import_file
from valuechain.store import Database

OTHER_TRACE = "0123456789abcdef0123456789abcdef"
TOOL_SPAN = "919046a58ca45119"


def _issues(ev: TrialEvidence, code: str) -> list[dict[str, Any]]:
    return [i for i in ev.issues.to_pylist() if i["code"] == code]


def _trials(ev: TrialEvidence) -> list[dict[str, Any]]:
    return ev.trials.drop_columns(["started_at", "ended_at", "run_completed_at"]).to_pylist()


def test_clean_trial_reports_only_the_incomplete_run(shared: Path) -> None:
    ev = contract(shared, trial_spans(shared))
    assert codes(ev) == ["W_RUN_INCOMPLETE_IN_EXPORT"]
    (issue,) = _issues(ev, "W_RUN_INCOMPLETE_IN_EXPORT")
    assert issue["run_id"] == "run_8d2e1f0a9b" and issue["occurrences"] == 7
    assert issue["message"].startswith("1 of 8 trials are in this export (7 missing); 0 of")
    assert issue["hint"] and issue["trace_id"] == FIRST_TRACE
    assert _trials(ev)[0]["integrity_codes"] == []


def test_trial_root_missing(shared: Path) -> None:
    spans = trial_spans(shared)
    drop_attr(root(spans), "mcp.app.span.role")
    ev = contract(shared, spans)
    assert ev.trials.num_rows == 0
    (issue,) = _issues(ev, "W_TRIAL_ROOT_MISSING")
    assert (issue["trace_id"], issue["span_id"]) == (FIRST_TRACE, "ef072431fdd52b22")


def test_multiple_trial_roots(shared: Path) -> None:
    spans = trial_spans(shared)
    second = {**root(spans), "spanId": "aaaaaaaaaaaaaaaa"}
    second["attributes"] = [dict(a) for a in root(spans)["attributes"]]
    set_attr(second, "mcp.app.trial.id", "it_second")
    ev = contract(shared, [*spans, second])
    assert ev.trials.num_rows == 2
    assert [t["integrity_codes"] for t in _trials(ev)] == [["W_MULTIPLE_TRIAL_ROOTS"]] * 2
    assert [t["exclusion_class"] for t in _trials(ev)] == ["integrity"] * 2
    (issue,) = _issues(ev, "W_MULTIPLE_TRIAL_ROOTS")  # one issue per trace, naming its roots
    assert (issue["trace_id"], issue["span_id"]) == (FIRST_TRACE, "ef072431fdd52b22")
    assert issue["message"].startswith("2 spans with mcp.app.span.role = 'trial' in one trace")
    assert "ef072431fdd52b22, aaaaaaaaaaaaaaaa" in issue["message"]


def test_multiple_trial_roots_with_one_trial_id_give_one_chain(shared: Path) -> None:
    spans = trial_spans(shared)
    second = {**root(spans), "spanId": "aaaaaaaaaaaaaaaa"}
    second["attributes"] = [dict(a) for a in root(spans)["attributes"]]
    ev = contract(shared, [*spans, second])
    assert [t["exclusion_class"] for t in _trials(ev)] == ["integrity"] * 2
    assert [i is not None for i in ev.inputs] == [True, False]  # one chain per trial id
    assert set(ev.producer_chain.column("trial_index").to_pylist()) == {0}


def test_a_root_stored_twice_with_different_content_is_one_trial(shared: Path) -> None:
    spans = trial_spans(shared)
    copy = {**root(spans), "name": "eval.trial (edited)"}
    decoded = decode(request([*spans, copy], resource(shared)))
    table = decoded.tables["spans"]
    conflicting = pc.equal(table["span_id"], pa.scalar(bytes.fromhex(root(spans)["spanId"])))
    first_row = pc.min(pc.filter(table["span_row"], conflicting)).as_py()
    group = pc.if_else(conflicting, first_row, pa.scalar(None, pa.int64()))  # as the store does
    rows = build_trials(
        table.append_column("dup_group", group),
        decoded.tables["attributes"],
        source_runs={0: decoded.sha256},
    )
    (trial,) = _trials(rows)
    assert trial["integrity_codes"] == ["W_DUPLICATE_CONFLICT"]
    assert trial["exclusion_class"] == "integrity"
    assert _issues(rows, "W_MULTIPLE_TRIAL_ROOTS") == []


def test_contract_type_wrong_type_and_missing_required_key(shared: Path) -> None:
    spans = trial_spans(shared)
    set_attr(root(spans), "mcp.app.trial.repetition", "0")  # a string, not an int
    drop_attr(root(spans), "mcp.app.case.key")
    ev = contract(shared, spans)
    issues = _issues(ev, "W_CONTRACT_TYPE")
    keys = sorted(i["key"] for i in issues)
    assert keys == ["mcp.app.case.key", "mcp.app.trial.repetition", "mcp.app.trial.repetition"]
    clash = next(i for i in issues if "carries a string" in i["message"])
    assert (clash["trace_id"], clash["span_id"]) == (FIRST_TRACE, "ef072431fdd52b22")
    (trial,) = _trials(ev)
    assert trial["repetition"] is None and trial["case_key"] is None  # absent, never coerced
    assert trial["integrity_codes"] == ["W_CONTRACT_TYPE"]


def test_unknown_contract_key_reported_once_per_key(shared: Path) -> None:
    one, two = trial_spans(shared), retrace(trial_spans(shared), OTHER_TRACE)
    set_attr(root(two), "mcp.app.trial.id", "it_copy")
    for spans in (one, two):
        set_attr(root(spans), "mcp.app.trial.mood", "sunny")
    ev = contract(shared, [*one, *two])
    (issue,) = _issues(ev, "W_UNKNOWN_CONTRACT_KEY")
    assert (issue["key"], issue["occurrences"]) == ("mcp.app.trial.mood", 2)
    assert [t["integrity_codes"] for t in _trials(ev)] == [[], []]  # kept, never an error
    # without the contract, mcp.app.* keys are interpreted by nobody
    assert _issues(evidence(request(one, None)), "W_UNKNOWN_CONTRACT_KEY") == []


def test_version_ahead_contract_is_never_coerced(shared: Path) -> None:
    res = resource(shared)
    for item in res["attributes"]:
        if item["key"] == "mcp.app.export.schema_version":
            item["value"] = {"intValue": "2"}
    ev = evidence(request(trial_spans(shared), res))
    (trial,) = _trials(ev)
    assert trial["integrity_codes"] == ["W_VERSION_AHEAD"]
    assert trial["exclusion_class"] == "version" and trial["contract_version"] == 2
    assert ev.inputs == (None,)
    (issue,) = _issues(ev, "W_VERSION_AHEAD")
    assert issue["key"] == "mcp.app.export.schema_version"


def test_version_ahead_analyzer(shared: Path) -> None:
    spans = trial_spans(shared)
    set_attr(root(spans), "mcp.app.analyzer.version", 13)
    ev = contract(shared, spans)
    (trial,) = _trials(ev)
    assert trial["exclusion_class"] == "version"
    assert ev.inputs[0] is not None  # the evidence itself is contract version 1
    assert ev.producer_chain.column("analyzer_version").to_pylist() == [13] * 6


def test_trial_id_conflict(shared: Path) -> None:
    one, two = trial_spans(shared), retrace(trial_spans(shared), OTHER_TRACE)
    ev = contract(shared, [*one, *two])
    assert [t["integrity_codes"] for t in _trials(ev)] == [["W_TRIAL_ID_CONFLICT"]] * 2
    (issue,) = _issues(ev, "W_TRIAL_ID_CONFLICT")  # one issue per trial id, naming its traces
    assert (issue["trace_id"], issue["trial_id"]) == (FIRST_TRACE, "it_adf8682489")
    assert f"2 traces ({FIRST_TRACE}, {OTHER_TRACE})" in issue["message"]
    assert [i is not None for i in ev.inputs] == [True, False]  # one chain per trial id


def test_transport_error_without_code(shared: Path) -> None:
    spans = trial_spans(shared)
    tool = next(s for s in spans if s["spanId"] == TOOL_SPAN)
    set_attr(tool, "mcp.app.tool.outcome", "transport_error")
    ev = contract(shared, spans)
    (issue,) = _issues(ev, "W_TRANSPORT_ERROR_WITHOUT_CODE")
    assert (issue["span_id"], issue["trial_id"]) == (TOOL_SPAN, "it_adf8682489")
    inp = ev.inputs[0]
    assert inp is not None
    (span,) = inp.evidence.spans  # passed through unchanged: no code invented
    assert (span.status, span.mcp_error_code) == ("error", None)


def test_evidence_span_unresolved(shared: Path) -> None:
    spans = trial_spans(shared)
    set_attr(root(spans), "mcp.app.stages.3.evidence.span_ids", ["deadbeefdeadbeef"])
    ev = contract(shared, spans)
    (issue,) = _issues(ev, "W_EVIDENCE_SPAN_UNRESOLVED")
    assert (issue["span_id"], issue["key"]) == (
        "deadbeefdeadbeef",
        "mcp.app.stages.3.evidence.span_ids",
    )
    unresolved = ev.producer_chain.column("unresolved_span_ids").to_pylist()
    assert unresolved == [[], [], [], ["deadbeefdeadbeef"], [], []]


def test_unknown_authored_mode_is_an_issue_not_passed_on(shared: Path) -> None:
    spans = trial_spans(shared)
    set_attr(root(spans), "mcp.app.authored.mode", "model")  # CONTRACT Q6's example
    ev = contract(shared, spans)
    (issue,) = _issues(ev, "W_UNKNOWN_AUTHORED_MODE")
    assert issue["key"] == "mcp.app.authored.mode"
    assert _trials(ev)[0]["integrity_codes"] == ["W_UNKNOWN_AUTHORED_MODE"]
    inp = ev.inputs[0]
    assert inp is not None
    assert inp.authored.mode == "model_driven"  # inferred (CONTRACT §2.3), never "model"
    assert inp.authored.to_wire() == {
        "mode": "model_driven",
        "isNegativeTest": False,
        "expectsToolCall": True,
        "expectsWidgetRender": False,
        "assertionCount": 3,
    }


def test_dropped_attributes_on_tool_or_grader_spans_flag_incomplete_evidence(
    shared: Path,
) -> None:
    spans = trial_spans(shared)
    next(s for s in spans if s["spanId"] == TOOL_SPAN)["droppedAttributesCount"] = 3
    (trial,) = _trials(contract(shared, spans))
    assert trial["evidence_incomplete"] is True
    assert trial["integrity_codes"] == []  # a flag, not an exclusion by itself


def test_conflicting_duplicate_spans_integrity_exclude_the_trial(
    shared: Path, tmp_path: Path
) -> None:
    first, second = trial_spans(shared), trial_spans(shared)
    set_attr(next(s for s in second if s["spanId"] == TOOL_SPAN), "tool.name", "get_alerts")
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path, spans in zip(paths, (first, second), strict=True):
        path.write_bytes(orjson.dumps(request(spans, resource(shared))))
    with Database(":memory:") as db:
        for i, path in enumerate(paths):
            import_file(db, path, i + 1, ImportOptions())
        ev = load_trials(db, [FIRST_TRACE])
    (trial,) = _trials(ev)
    assert trial["integrity_codes"] == ["W_DUPLICATE_CONFLICT"]
    assert trial["exclusion_class"] == "integrity"
