"""TRACE-FORMAT §3.9 end to end: decode → evidence → derive, against the persisted chains.

The example export carries, per trial, the producer's chain and measurements worked out by
hand with CONTRACT §2 (analyzer 12). Re-deriving from the §3.7 evidence must reproduce them
exactly, which checks the adapter and the derivation together.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from evidence_builders import EXAMPLE, attrs, example_spans, role

from valuechain.derive import derive_chain, derive_measurements
from valuechain.evidence.roots import source_run_id
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import DecodedSource, decode_export
from valuechain.pipeline.derive import load_trials
from valuechain.pipeline.imports import ImportOptions, import_file
from valuechain.store import Database


@pytest.fixture(scope="module")
def decoded(shared: Path) -> DecodedSource:
    return decode_export((shared / EXAMPLE).read_bytes(), str(EXAMPLE))


@pytest.fixture(scope="module")
def ev(decoded: DecodedSource) -> TrialEvidence:
    return build_trials(
        decoded.tables["spans"], decoded.tables["attributes"], source_runs={0: decoded.sha256}
    )


def _plain(v: dict[str, Any]) -> object:
    (kind, raw), *_ = v.items()
    return int(raw) if kind == "intValue" else raw


# trials column ← the trial root key it is copied from, as the file says
IDENTITY = {
    "trial_id": "mcp.app.trial.id",
    "run_id": "mcp.app.run.id",
    "suite_id": "mcp.app.suite.id",
    "case_id": "mcp.app.case.id",
    "case_key": "mcp.app.case.key",
    "case_title": "mcp.app.case.title",
    "intent": "mcp.app.case.intent",
    "provider": "mcp.app.variant.provider",
    "model": "mcp.app.variant.model",
    "host_key": "mcp.app.host.key",
    "host_name": "mcp.app.host.name",
    "execution_engine": "mcp.app.host.engine",
    "status": "mcp.app.trial.status",
    "repetition": "mcp.app.trial.repetition",
    "iteration_number": "mcp.app.trial.iteration_number",
    "is_negative": "mcp.app.case.is_negative",
    "run_group_id": "mcp.app.run.group_id",
    "config_revision": "mcp.app.run.config_revision",
    "case_set_fingerprint": "mcp.app.run.case_set_fingerprint",
    "run_status": "mcp.app.run.status",
    "materialization_state": "mcp.app.run.materialization_state",
    "trials_expected": "mcp.app.run.trials_expected",
    "measurement_unit": "mcp.app.run.measurement_unit",
    "producer_analyzer_version": "mcp.app.analyzer.version",
    "project_id": "mcp.app.project.id",
    "variant_key": "mcp.app.trial.variant_key",
    "session_id": "session.id",
}


def test_eight_trials_with_identity_exactly_as_the_file_says(
    shared: Path, ev: TrialEvidence
) -> None:
    roots = [s for s in example_spans(shared) if role(s) == "trial"]
    trials = ev.trials.to_pylist()
    assert len(trials) == 8
    for row, span in zip(trials, roots, strict=True):
        sent = attrs(span)
        expected = {
            col: _plain(sent[key]) if key in sent else None for col, key in IDENTITY.items()
        }
        assert {col: row[col] for col in IDENTITY} == expected
        assert row["trace_id"].hex() == span["traceId"]
        assert row["root_span_id"] == span["spanId"]
        assert row["contract_version"] == 1
        assert row["redacted"] is False
        assert row["contract"] is True
        assert row["integrity_codes"] == [] and row["exclusion_class"] is None
        assert row["evidence_incomplete"] is False
        assert (
            row["duration_ms"]
            == (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e6
        )
    assert ev.issues.num_rows == 0


def test_tokens_sum_the_model_steps(shared: Path, ev: TrialEvidence) -> None:
    spans = [s for s in example_spans(shared) if role(s) == "llm"]
    for row in ev.trials.to_pylist():
        steps = [attrs(s) for s in spans if s["traceId"] == row["trace_id"].hex()]
        if not steps:
            assert row["input_tokens"] is None
            continue
        assert row["input_tokens"] == sum(
            int(a["gen_ai.usage.input_tokens"]["intValue"]) for a in steps
        )
        assert row["output_tokens"] == sum(
            int(a["gen_ai.usage.output_tokens"]["intValue"]) for a in steps
        )


def _producer_wire(ev: TrialEvidence, i: int) -> dict[str, Any]:
    chain = pl.from_arrow(ev.producer_chain)
    assert isinstance(chain, pl.DataFrame)
    rows = []
    for r in chain.filter(pl.col("trial_index") == i).sort("stage_index").iter_rows(named=True):
        row = {"stage": r["stage"], "state": r["state"], "reason": r["reason"]}
        if r["evidence"] is not None:
            row["evidence"] = json.loads(r["evidence"])
        rows.append(row)
    outcome = ev.producer_outcome.to_pylist()[i]
    wire: dict[str, Any] = {"stageResults": rows}
    if outcome["first_failed_stage"] is not None:
        wire["firstFailedStage"] = outcome["first_failed_stage"]
    if outcome["failure_category"] is not None:
        wire["failureCategory"] = outcome["failure_category"]
    wire["stageAnalyzerVersion"] = outcome["analyzer_version"]
    return wire


def test_derived_chains_equal_the_persisted_ones(ev: TrialEvidence) -> None:
    for i, inp in enumerate(ev.inputs):
        assert inp is not None
        assert derive_chain(inp).to_wire() == _producer_wire(ev, i), f"trial {i + 1}"


def test_derived_measurements_equal_the_persisted_ones(ev: TrialEvidence) -> None:
    persisted = pl.from_arrow(ev.producer_measurements)
    assert isinstance(persisted, pl.DataFrame)
    for i, inp in enumerate(ev.inputs):
        assert inp is not None
        rows = derive_measurements(derive_chain(inp), ev.timed_spans(i)).to_wire()["rows"]
        assert isinstance(rows, list)
        ours = [(r["stage"], r["reach"], r.get("latency", {}).get("value")) for r in rows]
        theirs = persisted.filter(pl.col("trial_index") == i).sort("stage_index")
        assert ours == list(theirs.select("stage", "reach", "latency_ms").iter_rows())


def test_producer_outcome_rows(ev: TrialEvidence) -> None:
    for row in ev.producer_outcome.to_pylist():
        assert row["source"] == "producer"
        assert row["analyzer_version"] == row["measurements_analyzer_version"] == 12
        assert row["chain_verified"] is True and row["measurements_verified"] is True
        assert row["measurements_present"] is True and row["measurements_schema_version"] == 1
    assert all(r == [] for r in ev.producer_chain.column("unresolved_span_ids").to_pylist())
    assert ev.producer_chain.num_rows == ev.producer_measurements.num_rows == 48


def test_trial_3_setup_abort_inputs(ev: TrialEvidence) -> None:
    """Connect failed with -32603, canary ok, theirs, no transcript (§3.9 row 3)."""
    inp = ev.inputs[2]
    assert inp is not None
    wire = inp.to_wire()
    assert wire["iteration"] == {"status": "failed"}
    assert wire["evidence"] == {
        "traceAbsent": True,
        "setupSignals": {
            "connection": {
                "outcome": "failed",
                "attribution": "theirs",
                "egressVerified": True,
                "spanIds": ["4d2097f8fdacdac5", "7a15e31f2a8c7c0a"],
                "durationMs": 235.0,
            }
        },
    }


def test_coded_failure_is_a_protocol_error_not_a_domain_error(ev: TrialEvidence) -> None:
    """Trial 2: the server answers -32602 — a coded failure (§3.7 `mcpErrorCode`)."""
    inp = ev.inputs[1]
    assert inp is not None
    (span,) = inp.evidence.spans
    assert (span.status, span.mcp_error_code, span.tool_name) == ("error", -32602, "get_forecast")
    assert [e.to_wire() for e in inp.evidence.tool_errors] == [
        {"kind": "protocol-error", "toolName": "get_forecast"}
    ]


def test_store_path_reads_the_same_rows(shared: Path, ev: TrialEvidence) -> None:
    with Database(":memory:") as db:
        import_file(db, shared / EXAMPLE, 1, ImportOptions())
        traces = [t.hex() for t in ev.trials.column("trace_id").to_pylist()]
        spans, attributes = db.trial_rows(traces)
        assert (spans.num_rows, attributes.num_rows) == (72, 1744)  # no event attributes
        stored = load_trials(db, traces)
    assert stored.inputs == ev.inputs
    assert stored.trials.drop_columns(["source_id"]).equals(ev.trials.drop_columns(["source_id"]))
    assert stored.producer_chain.equals(ev.producer_chain)
    assert source_run_id("ab" * 32) == "src-abababababab"
