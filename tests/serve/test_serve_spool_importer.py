"""The spool and the importer without a server: every acknowledged body is imported exactly
once, whatever moment a crash picks; an open SDK run is provisional, then final."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from valuechain.pipeline.imports import ImportOptions
from valuechain.serve.importer import Importer
from valuechain.serve.mcpjam import ANSWERS, SdkRuns
from valuechain.serve.spool import OTLP_JSON, OTLP_PROTO, PART, SDK_REPORT, Spool, spool_folder
from valuechain.store import Database

REPORTER = Path(__file__).resolve().parents[2] / "fixtures/producers/mcpjam-sdk/1.14.0/captured"


class Rig:
    """A store, its spool and an importer, as ``serve`` wires them."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.spool = Spool(spool_folder(store))
        self.runs = SdkRuns(self.spool)
        self.importer = Importer(
            store, self.spool, self.runs, ImportOptions(), open_store=lambda: Database(store)
        )

    def restart(self) -> Rig:
        return Rig(self.store)

    def count(self, query: str) -> int:
        with Database(self.store, read_only=True) as db:
            row = db.fetch_one(query)
        return int(row[0]) if row else 0

    def spans(self) -> int:
        return self.count("SELECT count(*) FROM core.spans")


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return Rig(tmp_path / "store.duckdb")


def _bodies(otlp: SimpleNamespace, count: int, per: int = 3) -> list[tuple[bytes, str]]:
    """``count`` request bodies of ``per`` spans each, alternately protobuf and JSON."""
    out = []
    for k in range(count):
        spans = [otlp.span(k * per + i + 1, trace_id=f"{k + 1:032x}") for i in range(per)]
        request = otlp.request(*spans)
        if k % 2:
            out.append((otlp.dumps(request), OTLP_JSON))
        else:
            out.append((_protobuf(request), OTLP_PROTO))
    return out


def _protobuf(request: dict[str, Any]) -> bytes:
    """The protobuf encoding of an OTLP/JSON request (ids: hex in OTLP/JSON, bytes here)."""
    message = json_format.ParseDict(request, ExportTraceServiceRequest())
    spans = [s for r in message.resource_spans for ss in r.scope_spans for s in ss.spans]
    wanted = [s for r in request["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
    for span, source in zip(spans, wanted, strict=True):
        span.trace_id = bytes.fromhex(source["traceId"])
        span.span_id = bytes.fromhex(source["spanId"])
    return message.SerializeToString()


def test_acknowledged_bodies_are_imported_once_in_one_cycle(
    rig: Rig, otlp: SimpleNamespace
) -> None:
    for body, kind in _bodies(otlp, 6):
        rig.spool.put(body, kind)
    cycle = rig.importer.cycle()
    assert cycle.requests == 6
    assert len(cycle.sources) == 2  # the protobuf bodies as one source, the JSON as another
    assert rig.spans() == 18
    assert rig.count("SELECT count(*) FROM core.served_requests") == 6
    assert rig.spool.pending() == []
    assert rig.spool.backlog == 0
    assert rig.importer.cycle().requests == 0  # nothing left: the store is not even opened


def test_a_json_body_with_line_breaks_means_what_it_meant(rig: Rig, otlp: SimpleNamespace) -> None:
    pretty = orjson.dumps(otlp.request(otlp.span(1), otlp.span(2)), option=orjson.OPT_INDENT_2)
    assert b"\n" in pretty
    rig.spool.put(pretty, OTLP_JSON)
    rig.spool.put(otlp.dumps(otlp.request(otlp.span(3, trace_id="ab" * 16))), OTLP_JSON)
    assert rig.importer.cycle().sources[0].outcome == "imported"
    assert rig.spans() == 3


def test_a_crash_after_the_commit_and_before_the_spool_is_emptied_imports_nothing_twice(
    rig: Rig, otlp: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    for body, kind in _bodies(otlp, 4):
        rig.spool.put(body, kind)
    with monkeypatch.context() as patched:  # the process dies before it removes the files
        patched.setattr(Spool, "remove", lambda self, done: None)
        rig.importer.cycle()
    assert len(rig.spool.pending()) == 4
    again = rig.restart()
    cycle = again.importer.cycle()
    assert cycle.requests == 4 and cycle.sources == []  # recognised, not imported
    assert again.spans() == 12
    assert again.count("SELECT count(*) FROM core.sources") == 2
    assert again.spool.pending() == []


def test_a_crash_before_the_cycle_leaves_every_body_for_the_next_start(
    rig: Rig, otlp: SimpleNamespace
) -> None:
    for body, kind in _bodies(otlp, 3):
        rig.spool.put(body, kind)
    (rig.spool.folder / f"0-cut.{OTLP_PROTO}{PART}").write_bytes(b"half a bo")  # never answered
    again = rig.restart()
    assert not list(again.spool.folder.glob(f"*{PART}"))
    assert again.importer.cycle().requests == 3
    assert again.spans() == 9


def test_the_same_body_twice_changes_nothing(rig: Rig, otlp: SimpleNamespace) -> None:
    body, kind = _bodies(otlp, 1)[0]
    rig.spool.put(body, kind)
    rig.importer.cycle()
    with Database(rig.store, read_only=True) as db:
        before = {t: db.con.execute(f"SELECT count(*) FROM core.{t}").fetchone() for t in _TABLES}
    rig.spool.put(body, kind)  # an exporter's retry of a request already in
    cycle = rig.importer.cycle()
    assert cycle.requests == 1 and cycle.sources == []
    with Database(rig.store, read_only=True) as db:
        after = {t: db.con.execute(f"SELECT count(*) FROM core.{t}").fetchone() for t in _TABLES}
    assert after == before


_TABLES = ("spans", "sources", "served_requests", "trials", "issues")


def test_a_body_the_import_refuses_is_set_aside_not_lost(rig: Rig) -> None:
    rig.spool.put(b"not a trace request at all", OTLP_JSON)
    cycle = rig.importer.cycle()
    assert [s.outcome for s in cycle.sources] == ["rejected"]
    assert [p.read_bytes() for p in (rig.spool.folder / "rejected").iterdir()] == [
        b"not a trace request at all"
    ]
    assert rig.count("SELECT count(*) FROM core.served_requests") == 0
    assert rig.spool.backlog == 0


def _post(runs: SdkRuns, folder: Path, run_id: str | None = None) -> str:
    """Send the captured reporter bodies of ``folder`` through ``runs`` (the runId that the
    start returned put in the later bodies); returns the run id."""
    for path in sorted(folder.iterdir()):
        body = orjson.loads(path.read_bytes())
        if "runId" in body:
            body["runId"] = run_id
        step = path.name.split("runs_", 1)[1].removesuffix(".json")
        reply = getattr(runs, step)(orjson.dumps(body))
        assert reply.status == 200, reply.body
        run_id = reply.body.get("runId", run_id)
    assert run_id is not None
    return run_id


def test_an_open_run_is_provisional_then_final_and_never_twice(rig: Rig, tmp_path: Path) -> None:
    captured = REPORTER / "reporter"
    opened = tmp_path / "opened"
    opened.mkdir()
    for path in sorted(captured.iterdir())[:2]:  # start and the first iterations batch
        shutil.copy(path, opened)
    run_id = _post(rig.runs, opened)
    rig.importer.cycle()
    state = "SELECT any_value(materialization_state) FROM core.analytics_runs"
    assert rig.count("SELECT count(*) FROM core.trials") == 4
    with Database(rig.store, read_only=True) as db:
        assert db.fetch_one(state) == ("provisional",)
    rest = tmp_path / "rest"
    rest.mkdir()
    for path in sorted(captured.iterdir())[2:]:
        shutil.copy(path, rest)
    _post(rig.runs, rest, run_id)
    rig.importer.cycle()
    with Database(rig.store, read_only=True) as db:
        assert db.fetch_one(state) == ("final",)
    assert rig.count("SELECT count(*) FROM core.trials") == 12
    assert rig.count("SELECT count(*) FROM core.sources") == 1  # the provisional one replaced
    assert rig.count("SELECT count(*) FROM core.served_requests") == 5
    left = [p.name for p in rig.spool.folder.iterdir()]
    assert left == [ANSWERS]  # no body: only the finalize's answer, for the SDK's retries


def test_the_reporter_retrying_a_step_is_answered_as_before(rig: Rig) -> None:
    start = orjson.dumps({"suiteName": "s", "externalRunId": "ci-7", "expectedIterations": 1})
    first = rig.runs.start(start)
    assert rig.runs.start(start).body["runId"] == first.body["runId"]
    run_id = first.body["runId"]
    batch = (REPORTER / "reporter" / "002-sdk_v1_evals_runs_iterations.json").read_bytes()
    body = orjson.dumps(orjson.loads(batch) | {"runId": run_id})
    assert rig.runs.iterations(body).body["inserted"] == 4
    again = rig.runs.iterations(body).body
    assert (again["inserted"], again["skipped"], again["total"]) == (0, 4, 4)
    finalize = orjson.dumps({"runId": run_id, "externalRunId": "ci-7"})
    done = rig.runs.finalize(finalize)
    assert done.body["summary"]["total"] == 4
    assert rig.runs.finalize(finalize) == done  # the SDK's retry: the answer it missed
    other = orjson.dumps({"runId": run_id, "externalRunId": "ci-8"})
    assert rig.runs.finalize(other).status == 409  # another finalize of a finished run
    reused = rig.runs.start(start).body  # the CI-retry path of a finished run
    assert reused["reused"] is True and reused["status"] == "completed"


@pytest.mark.parametrize(
    ("step", "body", "status"),
    [
        ("report", b"{not json", 400),
        ("report", b"[1, 2]", 400),
        ("report", b'{"suiteName": "s"}', 400),
        ("start", b'{"suiteName": "s", "results": []}', 400),
        ("iterations", b'{"runId": "run_nope", "results": []}', 404),
        ("iterations", b'{"runId": "run_nope"}', 400),
        ("finalize", b'{"runId": "run_nope", "externalRunId": "x"}', 404),
    ],
)
def test_a_step_the_backend_would_refuse_is_refused_and_nothing_spooled(
    rig: Rig, step: str, body: bytes, status: int
) -> None:
    reply = getattr(rig.runs, step)(body)
    assert reply.status == status and reply.body["ok"] is False and reply.body["error"]
    assert not any(rig.spool.folder.iterdir())


def test_a_report_is_imported_as_the_file_import_reads_it(rig: Rig) -> None:
    body = next((REPORTER / "suite-model-a").iterdir()).read_bytes()
    reply = rig.runs.report(body)
    assert reply.status == 200 and reply.body["summary"]["total"] == 30
    assert rig.spool.pending()[0].kind == SDK_REPORT
    rig.importer.cycle()
    assert rig.count("SELECT count(*) FROM core.trials") == 30


def test_the_reporters_retries_are_answered_after_a_restart_too(rig: Rig) -> None:
    """The SDK retries a step whose answer it missed; serve may have restarted meanwhile, and
    the run been imported (its folder gone): the retry still gets the first answer."""
    start = orjson.dumps({"suiteName": "s", "externalRunId": "ci-9", "expectedIterations": 1})
    run_id = rig.runs.start(start).body["runId"]
    batch = (REPORTER / "reporter" / "002-sdk_v1_evals_runs_iterations.json").read_bytes()
    rig.runs.iterations(orjson.dumps(orjson.loads(batch) | {"runId": run_id}))
    finalize = orjson.dumps({"runId": run_id, "externalRunId": "ci-9"})
    answer = rig.runs.finalize(finalize)
    rig.importer.cycle()
    again = rig.restart()  # a new serve over the same spool and store
    assert again.runs.finalize(finalize) == answer
    reused = again.runs.start(start).body
    assert reused["reused"] is True and reused["runId"] == run_id
    assert again.importer.cycle().requests == 0  # nothing new was spooled by the retries
    assert again.count("SELECT count(*) FROM core.trials") == 4


def test_a_cycle_knows_each_body_by_its_name_without_reading_it(rig: Rig) -> None:
    spooled = rig.spool.put(b'{"resourceSpans": []}', OTLP_JSON)
    assert spooled.sha256 in spooled.path.name  # the name carries the whole sha256
    spooled.path.write_bytes(b"other bytes")  # were the body read, another sha256 would come
    (pending,) = rig.spool.pending()
    assert pending.sha256 == spooled.sha256
