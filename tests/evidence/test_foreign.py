"""TRACE-FORMAT §3.8: plain OpenInference / GenAI traces, no contract — trial = trace."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from evidence_builders import evidence, request, value

from valuechain.derive import derive_chain
from valuechain.evidence.trials import TrialEvidence, build_trials
from valuechain.ingest.decode import decode_export
from valuechain.pipeline.derive import load_trials
from valuechain.pipeline.imports import ImportOptions, import_file
from valuechain.store import Database

CONFORMANCE = Path("conformance/otlp")
FILE_07 = "07_otel-tui_fileexporter_mixed_signals.ndjson.gz"
FILE_04 = "04_jaeger_cassandra_otel_traces_01_links_events.json"
IDENTITY = (
    "suite_id",
    "case_id",
    "case_key",
    "run_group_id",
    "config_revision",
    "case_set_fingerprint",
    "host_key",
    "host_name",
    "execution_engine",
)


def _conformance(shared: Path, name: str) -> tuple[TrialEvidence, str, set[str]]:
    raw = (shared / CONFORMANCE / name).read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    decoded = decode_export(raw, name)
    spans = decoded.tables["spans"]
    ev = build_trials(spans, decoded.tables["attributes"], source_runs={0: decoded.sha256})
    return ev, decoded.sha256, {t.hex() for t in spans.column("trace_id").to_pylist()}


@pytest.mark.parametrize("name", [FILE_07, FILE_04])
def test_one_trial_per_trace_in_one_source_run(shared: Path, name: str) -> None:
    ev, sha, traces = _conformance(shared, name)
    rows = ev.trials.drop_columns(["started_at", "ended_at", "run_completed_at"]).to_pylist()
    assert {r["trace_id"].hex() for r in rows} == traces and len(rows) == len(traces)
    for row in rows:
        assert row["run_id"] == "src-" + sha[:12]
        assert row["trial_id"] == row["trace_id"].hex()
        assert row["contract"] is False and row["contract_version"] is None
        assert all(row[c] is None for c in IDENTITY)  # absent, never equal
        assert row["status"] in ("completed", "failed")
    for inp in ev.inputs:
        assert inp is not None
        assert inp.authored.to_wire() == {"mode": "model_free", "toolExpectation": "open"}
        assert inp.evidence.spans == () and inp.evidence.prompts == ()


def test_earliest_root_and_multiple_roots(shared: Path) -> None:
    ev, _, _ = _conformance(shared, "02_tempo_vulture_trace_base64ids.json")
    assert ev.trials.num_rows == 1
    # spans of several services (their clocks): one child lies outside its parent's window
    assert ev.issues.column("code").to_pylist() == ["W_MULTIPLE_ROOTS", "I_CHILD_OUTSIDE_PARENT"]
    assert ev.issues.column("message")[0].as_py().startswith("2 parentless spans (")
    assert ev.trials.column("integrity_codes").to_pylist() == [[]]


def _span(n: int, parent: int | None, name: str, attrs: dict[str, object], **kw: object) -> dict:
    span: dict[str, object] = {
        "traceId": "ab" * 16,
        "spanId": f"{n:016x}",
        "name": name,
        "kind": kw.get("kind", 1),
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1_000_000),
        "endTimeUnixNano": str(1_700_000_000_000_000_000 + n * 1_000_000 + 500_000),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if parent is not None:
        span["parentSpanId"] = f"{parent:016x}"
    if "status" in kw:
        span["status"] = {"code": kw["status"]}
    return span


def test_genai_trace_maps_to_the_chat_session_form() -> None:
    spans = [
        _span(1, None, "invoke_agent", {"gen_ai.operation.name": "invoke_agent"}),
        _span(
            2,
            1,
            "chat gpt-4.1",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 4,
                "llm.input_messages.0.message.role": "user",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup",
            },
            kind=3,
        ),
        _span(
            3,
            1,
            "execute_tool lookup",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.call.id": "call_1",
                "error.type": "tool_error",
            },
            status=2,
        ),
    ]
    ev = evidence(request(spans, None))
    (row,) = ev.trials.to_pylist()
    assert (row["provider"], row["model"], row["input_tokens"], row["output_tokens"]) == (
        "openai",
        "gpt-4.1",
        10,
        4,
    )
    (inp,) = ev.inputs
    assert inp is not None
    assert inp.to_wire()["authored"] == {
        "mode": "model_driven",
        "hasUserAsk": True,
        "toolExpectation": "open",
    }
    (span,) = inp.evidence.spans
    assert (span.id, span.status, span.tool_name, span.mcp_error_code) == (
        f"{3:016x}",
        "error",
        "lookup",
        None,
    )
    chain = [
        (r.stage.value, r.state.value, r.reason and r.reason.value)
        for r in derive_chain(inp).stage_results
    ]
    assert chain == [
        ("connection", "passed", "impliedByLaterEvidence"),
        ("discovery", "passed", "impliedByLaterEvidence"),
        ("selection", "notMeasured", "matchVerdictUnavailable"),
        ("call", "passed", "observed"),
        ("response", "failed", "toolError"),
        ("userValue", "notReached", "earlierStageFailed"),
    ]


def test_mcp_setup_spans_fold_into_signals() -> None:
    spans = [
        _span(1, None, "agent", {}),
        _span(2, 1, "initialize", {"mcp.method.name": "initialize"}, kind=3),
        _span(
            3,
            1,
            "initialize",
            {"mcp.method.name": "initialize", "error.type": "-32000"},
            kind=3,
            status=2,
        ),
        _span(4, 1, "tools/list", {"mcp.method.name": "tools/list"}, kind=3),
    ]
    (inp,) = evidence(request(spans, None)).inputs
    assert inp is not None
    assert inp.to_wire()["evidence"]["setupSignals"] == {  # type: ignore[index]
        "connection": {
            "outcome": "failed",
            "attribution": "unknown",
            "spanIds": [f"{2:016x}", f"{3:016x}"],
        },
        "discovery": {"outcome": "ok", "attribution": "unknown", "spanIds": [f"{4:016x}"]},
    }


def test_one_run_per_import_source(shared: Path, tmp_path: Path) -> None:
    raw = gzip.decompress((shared / CONFORMANCE / FILE_07).read_bytes())
    (tmp_path / "07.ndjson").write_bytes(raw)
    with Database(":memory:") as db:
        for i, path in enumerate([tmp_path / "07.ndjson", shared / CONFORMANCE / FILE_04]):
            import_file(db, path, i + 1, ImportOptions())
        traces = [
            r[0]
            for r in db.con.execute(
                "SELECT DISTINCT lower(hex(trace_id)) FROM core.spans"
            ).fetchall()
        ]
        shas = dict(db.con.execute("SELECT source_id, sha256 FROM core.sources").fetchall())
        ev = load_trials(db, traces)
    runs = {"src-" + sha[:12] for sha in shas.values()}
    assert set(ev.trials.column("run_id").to_pylist()) == runs and len(runs) == 2
    assert ev.trials.num_rows == len(traces)


def test_a_foreign_source_needs_its_sha256() -> None:
    spans = [_span(1, None, "root", {})]
    decoded = decode_export(__import__("orjson").dumps(request(spans, None)), "x.json")
    with pytest.raises(ValueError, match="source_runs has no sha256"):
        build_trials(decoded.tables["spans"], decoded.tables["attributes"])
