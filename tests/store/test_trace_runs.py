"""Widening touched traces to whole runs without listing every stored trace.

`Database.trace_runs(touched)` finds the runs of a few traces from their own rows, and each
run's other traces from the derived trials, the pending derivations and, for traces without
the contract, their import source (`sql/query/run_members.sql`). It must give exactly what
filtering the list of every trace gives (`of_runs`), whatever state the store is in: traces
split over imports, a trace whose trial root arrives later (it moves from its source's run to
the contract's), traces not derived yet, foreign traces.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import orjson
import pyarrow as pa
import pytest
from evidence_builders import FIRST_TRACE, example_spans, request, resource

from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database, evidence_reads, of_runs
from valuechain.synth import SynthConfig, write_export

FOREIGN = ("0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210")
CONFORMANCE = [
    "01_otel-proto_examples_trace.json",
    "02_tempo_vulture_trace_base64ids.json",
    "04_jaeger_cassandra_otel_traces_01_links_events.json",
]


def _is_root(span: dict[str, object]) -> bool:
    attributes = span.get("attributes")
    assert isinstance(attributes, list)
    return any(
        a["key"] == "mcp.app.span.role" and a["value"] == {"stringValue": "trial"}
        for a in attributes
    )


def _imports(shared: Path, folder: Path, otlp: SimpleNamespace) -> list[tuple[Path, bool]]:
    """The files imported in turn, each with whether its import derives."""
    spans = example_spans(shared)
    late = spans[-1]["traceId"]  # a trace of the run that arrives in a later import
    first_root = [s for s in spans if s["traceId"] == FIRST_TRACE and _is_root(s)]
    parts = {
        # the run without the first trace's trial root (that trace is its source's run) and
        # without the late trace
        "a.json": [s for s in spans if s["traceId"] != late and s not in first_root],
        "b.json": first_root,  # the root arrives: the first trace moves into the run
        "c.json": [s for s in spans if s["traceId"] == late],
    }
    files: list[tuple[Path, bool]] = []
    for name, part in parts.items():
        path = folder / name
        path.write_bytes(orjson.dumps(request(part, resource(shared))))
        files.append((path, name != "c.json"))  # the late trace is left pending
        if name == "a.json":
            files += [(shared / "conformance" / "otlp" / f, True) for f in CONFORMANCE]
            # two traces without the contract: one run, their source's
            foreign = folder / "foreign.json"
            foreign.write_bytes(
                otlp.dumps(
                    otlp.request(*(otlp.span(k, trace_id=t) for k, t in enumerate(FOREIGN, 1)))
                )
            )
            files.append((foreign, True))
    synth = folder / "synth.jsonl"
    write_export(synth, SynthConfig(runs=2, cases=2, models=2, reps=2, seed=3), ndjson=True)
    files.append((synth, True))
    return files


def _every_touched_set(db: Database) -> list[list[bytes]]:
    rows = db.con.sql("SELECT DISTINCT source_id, trace_id FROM core.spans").fetchall()
    by_source: dict[int, list[bytes]] = {}
    for source, trace in rows:
        by_source.setdefault(int(source), []).append(bytes(trace))
    traces = sorted({bytes(t) for _, t in rows})
    return [*by_source.values(), *([t] for t in traces), traces, [b"\x00" * 16]]


def _widen(monkeypatch: pytest.MonkeyPatch, way: str) -> None:
    """Force one way of widening: run by run ("bounded", whatever share of the store the
    touched traces are) or from the list of every trace ("whole list")."""
    monkeypatch.undo()
    if way == "bounded":
        monkeypatch.setattr(evidence_reads.EvidenceReads, "_stored_trials", lambda _: 2**62)
    else:
        monkeypatch.setattr(evidence_reads, "WHOLE_LIST_SHARE", 0.0)


def test_the_runs_of_touched_traces_are_those_of_the_whole_list(
    shared: Path, tmp_path: Path, otlp: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _widen(monkeypatch, "bounded")
    db = Database(tmp_path / "store.duckdb")
    for path, derive in _imports(shared, tmp_path, otlp):
        assert import_paths(db, [path], ImportOptions(derive=derive)).ok, path
        every = db.trace_runs()
        for touched in _every_touched_set(db):
            found = db.trace_runs(touched)
            assert found.equals(of_runs(every, touched)), (path.name, touched)
    db.close()


def test_a_moved_and_a_pending_trace_widen_to_their_run(
    shared: Path, tmp_path: Path, otlp: SimpleNamespace
) -> None:
    """After b.json, the first trace is in the run; after c.json (not derived), so is the late
    trace: touching either widens to all eight traces of the example."""
    db = Database(tmp_path / "store.duckdb")
    files = _imports(shared, tmp_path, otlp)
    for path, derive in files[:7]:  # through c.json
        assert import_paths(db, [path], ImportOptions(derive=derive)).ok
    late = bytes.fromhex(example_spans(shared)[-1]["traceId"])
    for touched in ([bytes.fromhex(FIRST_TRACE)], [late]):
        found = db.trace_runs(touched)
        assert found.num_rows == 8
        assert set(found["run_key"].to_pylist()) == {"run_8d2e1f0a9b"}
    db.close()


def test_a_small_derive_never_lists_every_trace(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A derive after a small import into a larger store reads only its runs' traces."""
    db = Database(tmp_path / "store.duckdb")
    big = tmp_path / "big.jsonl"
    write_export(big, SynthConfig(runs=3, cases=4, models=2, reps=2, seed=1), ndjson=True)
    assert import_paths(db, [big], ImportOptions()).ok
    listed: list[bool] = []
    traces_of = Database._traces_of

    def spy(self: Database, traces: pa.Array | pa.ChunkedArray | None) -> pa.Table:
        listed.append(traces is None)
        return traces_of(self, traces)

    monkeypatch.setattr(Database, "_traces_of", spy)
    small = tmp_path / "small.json"
    small.write_bytes(orjson.dumps(request(example_spans(shared), resource(shared))))
    assert import_paths(db, [small], ImportOptions()).ok
    assert listed and not any(listed)
    assert db.con.sql("SELECT count(*) FROM core.trials").fetchall() == [(48 + 8,)]
    db.close()


def _run_0(spans: list[dict[str, object]], trace: str) -> list[dict[str, object]]:
    """``spans`` under ``trace``, their run id changed to ``run_0`` (sorts before the example's)."""
    for span in spans:
        span["traceId"] = trace
        attributes = span["attributes"]
        assert isinstance(attributes, list)
        for a in attributes:
            if a["key"] == "mcp.app.run.id":
                a["value"] = {"stringValue": "run_0"}
    return spans


def _two_runs(shared: Path, case: str) -> dict[str, list[dict[str, object]]]:
    """The example, whose first trace's root also names run ``run_0`` (as a conflicting
    duplicate of the root in a later file, or as a second `mcp.app.run.id` on the root), then
    a trace of ``run_0``."""
    spans = example_spans(shared)
    first_root = next(s for s in spans if s["traceId"] == FIRST_TRACE and _is_root(s))
    other = next(s["traceId"] for s in spans if s["traceId"] != FIRST_TRACE)
    files = {"example.json": spans}
    if case == "conflicting duplicate root":
        files["duplicate.json"] = _run_0([orjson.loads(orjson.dumps(first_root))], FIRST_TRACE)
    else:
        first_root["attributes"].append(
            {"key": "mcp.app.run.id", "value": {"stringValue": "run_0"}}
        )
    files["late.json"] = _run_0([s for s in example_spans(shared) if s["traceId"] == other], LATE)
    return files


LATE = "cd" * 16
DERIVED = [
    "trials",
    "stage_chain",
    "trial_outcome",
    "stage_measurements",
    "trial_issues",
    "setup_signals",
    "trial_flags",
    "derived_evidence",
    "stage_funnel",
    "run_summary",
]


@pytest.mark.parametrize("case", ["conflicting duplicate root", "two run ids on one root"])
def test_a_trace_naming_two_runs_belongs_to_the_run_its_trial_is_derived_into(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """The first trace's root also names ``run_0``, which sorts first; its trial keeps the
    first root's run, the example's. So does its run key: widening the late ``run_0`` trace
    takes only it, by either path, and no batch holds the trace apart from its run (one did:
    its trial was then found alone, "1 of 8 trials are in this export", in a complete run)."""
    stores = {}
    for way in ("bounded", "whole list"):
        _widen(monkeypatch, way)
        db = Database(tmp_path / f"store-{way}.duckdb")
        for name, part in _two_runs(shared, case).items():
            path = tmp_path / name
            path.write_bytes(orjson.dumps(request(part, resource(shared))))
            assert import_paths(db, [path], ImportOptions()).ok, name
        touched = [bytes.fromhex(LATE)]
        widened = db.trace_runs(touched)
        assert widened.equals(of_runs(db.trace_runs(), touched))
        assert widened["trace_id"].to_pylist() == touched
        stores[way] = {
            t: db.con.sql(f"SELECT * FROM core.{t} ORDER BY ALL").fetchall() for t in DERIVED
        }
        db.close()
    assert stores["bounded"] == stores["whole list"]
    incomplete = {
        i[5] for i in stores["whole list"]["trial_issues"] if i[2] == "W_RUN_INCOMPLETE_IN_EXPORT"
    }
    assert incomplete == {"run_0"}  # 1 of its 8; the example's run is whole
    assert {row[2] for row in stores["whole list"]["trials"]} == {"run_8d2e1f0a9b", "run_0"}
