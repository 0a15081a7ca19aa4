"""``POST /v1/traces`` and the SDK routes as OTLP/HTTP asks, a decision table: what serve
answers to each kind of request (status, body, headers), the token, the caps, start-up
refusal, and that a body sent twice is in the store once."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)
from serve_harness import (
    MCPJAM,
    Served,
    Start,
    cli,
    drained,
    imported_runs,
    otlp_json,
    otlp_proto,
    sdk_runs,
    served_requests,
    span_ids,
    start,
    trace_id,
)
from starlette.requests import Request

from valuechain.serve.app import Receiver
from valuechain.serve.mcpjam import SdkRuns
from valuechain.serve.options import Limits
from valuechain.serve.spool import SDK_REPORT, Spool

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
MIB = 1 << 20
INVALID, EXHAUSTED = code_pb2.INVALID_ARGUMENT, code_pb2.RESOURCE_EXHAUSTED
TRACE = "5b8efff798038103d269b633813fc60c"


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9)


BOMB = gzipped(b"\0" * (3 * MIB))  # a few KiB that inflate past --max-decompressed 2


# --------------------------------------------------------------------------- the answers
def empty_response(answer: requests.Response) -> None:
    if answer.headers["content-type"].startswith(PROTOBUF):
        response = ExportTraceServiceResponse.FromString(answer.content)
        assert response == ExportTraceServiceResponse()
    else:
        assert answer.json() == {}


def one_rejected(answer: requests.Response) -> None:
    if answer.headers["content-type"].startswith(PROTOBUF):
        partial = ExportTraceServiceResponse.FromString(answer.content).partial_success
        rejected, message = partial.rejected_spans, partial.error_message
    else:
        partial = answer.json()["partialSuccess"]
        rejected, message = int(partial["rejectedSpans"]), partial["errorMessage"]
    assert rejected == 1
    assert "E_MISSING_ID" in message


def status_of(answer: requests.Response) -> tuple[int, str]:
    """The google.rpc.Status of an error answer, in the answer's encoding."""
    if answer.headers["content-type"].startswith(PROTOBUF):
        status = status_pb2.Status.FromString(answer.content)
        return status.code, status.message
    body = answer.json()
    return body["code"], body["message"]


GOOD_JSON = otlp_json(TRACE, TRACE, indent=True)
QUARANTINED_JSON = otlp_json(TRACE, "")  # an empty trace id

# (id, content type, content encoding, body, status, check of the answer)
CASES: list[tuple[str, str, str | None, bytes, int, Any]] = [
    ("protobuf", PROTOBUF, None, otlp_proto(TRACE, TRACE), 200, empty_response),
    ("protobuf-gzip", PROTOBUF, "gzip", gzipped(otlp_proto(TRACE)), 200, empty_response),
    ("json", JSON, None, GOOD_JSON, 200, empty_response),
    ("protobuf-empty-request", PROTOBUF, None, b"", 200, empty_response),
    ("json-empty-request", JSON, None, b" {}\n", 200, empty_response),
    ("json-gzip-charset", f"{JSON};charset=utf-8", "gzip", gzipped(GOOD_JSON), 200, empty_response),
    ("protobuf-quarantined", PROTOBUF, None, otlp_proto(TRACE, ""), 200, one_rejected),
    ("json-quarantined", JSON, None, QUARANTINED_JSON, 200, one_rejected),
    ("garbage-protobuf", PROTOBUF, None, b"\xff\xff\xff\xff not protobuf", 400, INVALID),
    ("bad-json", JSON, None, b'{"resourceSpans": [', 400, INVALID),
    ("gzip-cut", PROTOBUF, "gzip", gzipped(otlp_proto(TRACE) * 50)[:40], 400, INVALID),
    ("gzip-not-gzip", JSON, "gzip", GOOD_JSON, 400, INVALID),
    ("past-max-body", JSON, None, b" " * (MIB + 1) + GOOD_JSON, 413, EXHAUSTED),
    ("gzip-bomb", PROTOBUF, "gzip", BOMB, 413, EXHAUSTED),
    ("text-plain", "text/plain", None, GOOD_JSON, 415, INVALID),
    ("brotli", JSON, "br", GOOD_JSON, 415, INVALID),
]  # fmt: skip


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One serve for the table: --max-body 1 MiB, --max-decompressed 2 MiB."""
    store = tmp_path_factory.mktemp("capped") / "capped.duckdb"
    served = start(store, "--max-body", "1", "--max-decompressed", "2")
    yield served
    assert served.stop() == 0


@pytest.mark.parametrize(
    ("content_type", "encoding", "body", "status", "check"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_traces_answer(
    capped: Served, content_type: str, encoding: str | None, body: bytes, status: int, check: Any
) -> None:
    headers = {"Content-Type": content_type} | ({"Content-Encoding": encoding} if encoding else {})
    answer = capped.post("/v1/traces", body, **headers)
    assert answer.status_code == status, answer.text
    if status == 200:
        check(answer)
        return
    code, message = status_of(answer)  # a google.rpc.Status, as OTLP/HTTP's failures are
    assert code == check and message
    if content_type.startswith((PROTOBUF, JSON)):  # the request's encoding, else JSON
        assert answer.headers["content-type"].startswith(content_type.split(";", maxsplit=1)[0])


def test_sdk_routes_answer_refusals_as_the_sdk_reads_them(capped: Served) -> None:
    """The SDK shows a failed request's ``error`` (``{ok: false, error}``), also past the cap."""
    chunks = (b" " * (MIB // 4) for _ in range(5))  # chunked: no Content-Length to refuse
    for body in (b" " * (MIB + 1) + b"{}", chunks):
        answer = requests.post(capped.url + "/sdk/v1/evals/report", data=body, timeout=30)
        assert answer.status_code == 413
        assert answer.json()["ok"] is False and "cap" in answer.json()["error"]


@pytest.mark.slow
def test_answered_bodies_only_are_in_the_store(serve: Start, store: Path) -> None:
    """After the table: the accepted bodies' spans are in the store, the refused ones' not."""
    served = serve(store, "--max-body", "1", "--max-decompressed", "2")
    accepted = set()  # the bodies answered 200, as spooled: once inflated
    for _, content_type, encoding, body, status, _check in CASES:
        headers = {"Content-Type": content_type} | (
            {"Content-Encoding": encoding} if encoding else {}
        )
        assert served.post("/v1/traces", body, **headers).status_code == status
        if status == 200 and body.strip() not in (b"", b"{}"):  # empty requests: nothing to keep
            accepted.add(gzip.decompress(body) if encoding == "gzip" else body)
    assert served.stop() == 0
    assert served_requests(store) == len(accepted)
    # the quarantined span (an empty trace id) is not among the spans
    assert all(trace for trace, _ in span_ids(store))


# --------------------------------------------------------------------------- the token
@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = start(tmp_path_factory.mktemp("guarded") / "guarded.duckdb", "--token", "secret")
    yield served
    assert served.stop() == 0


@pytest.mark.parametrize(
    ("authorization", "status"),
    [(None, 401), ("Bearer wrong", 401), ("secret", 401), ("Bearer secret", 200)],
    ids=["none", "wrong", "not-bearer", "right"],
)
def test_token(guarded: Served, authorization: str | None, status: int) -> None:
    served = guarded
    auth = {"Authorization": authorization} if authorization else {}
    answer = served.post("/v1/traces", GOOD_JSON, **{"Content-Type": JSON}, **auth)
    assert answer.status_code == status
    sdk = served.post("/sdk/v1/evals/report", b"{}", **{"Content-Type": JSON}, **auth)
    if status == 401:
        assert answer.headers["www-authenticate"] == "Bearer"
        assert status_of(answer)[0] == code_pb2.UNAUTHENTICATED
        assert sdk.status_code == 401 and sdk.json()["ok"] is False
    else:
        assert sdk.status_code == 400  # past the token: an empty report is refused as such


def test_refuses_to_listen_beyond_loopback_without_a_token(store: Path) -> None:
    done = cli(store, "serve", "--host", "0.0.0.0", "--port", "0", timeout=30)
    assert done.returncode == 1
    assert "--host 0.0.0.0: serving beyond this machine needs a token" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert not store.exists()


# --------------------------------------------------------------------------- twice, once
@pytest.mark.parametrize(("content_type", "when"), [(PROTOBUF, "one-cycle"), (JSON, "two-cycles")])
def test_a_body_sent_twice_is_in_the_store_once(
    serve: Start, store: Path, content_type: str, when: str
) -> None:
    body = otlp_proto(TRACE, TRACE) if content_type == PROTOBUF else GOOD_JSON
    if when == "one-cycle":  # both copies wait for the cycle of the stop
        served = serve(store, interval=30)
        served.post("/v1/traces", otlp_proto(trace_id(99)), **{"Content-Type": PROTOBUF})
        drained(served, 1)  # the first cycle is done: the next is 30 s away
        for _ in range(2):
            assert served.post("/v1/traces", body, **{"Content-Type": content_type}).ok
    else:
        served = serve(store)
        served.post("/v1/traces", otlp_proto(trace_id(99)), **{"Content-Type": PROTOBUF})
        for n in (2, 3):
            assert served.post("/v1/traces", body, **{"Content-Type": content_type}).ok
            drained(served, n)
    assert served.stop() == 0
    ids = span_ids(store)
    assert len(ids) == len(set(ids)) == 3  # the other request's span and the twice-sent two
    assert served_requests(store) == 2  # one ledger row per distinct body


@pytest.mark.slow
def test_sdk_iterations_sent_twice_are_skipped_and_counted_once(
    serve: Start, store: Path, tmp_path: Path
) -> None:
    folder = MCPJAM / "1.14.0" / "captured" / "reporter"
    start_body, *batches, finalize = sorted(folder.glob("0*.json"))
    served = serve(store)
    run_id = served.post("/sdk/v1/evals/runs/start", start_body.read_bytes()).json()["runId"]
    total = 0
    for batch in batches:
        body = batch.read_bytes().replace(b"run_fixture_1", run_id.encode())
        results = len(orjson.loads(body)["results"])
        first = served.post("/sdk/v1/evals/runs/iterations", body).json()
        again = served.post("/sdk/v1/evals/runs/iterations", body).json()  # the SDK's retry
        total += results
        assert first == {"ok": True, "inserted": results, "skipped": 0, "total": total}
        assert again == {"ok": True, "inserted": 0, "skipped": results, "total": total}
    body = finalize.read_bytes().replace(b"run_fixture_1", run_id.encode())
    assert served.post("/sdk/v1/evals/runs/finalize", body).json()["summary"]["total"] == total
    assert served.stop() == 0
    assert sdk_runs(store) == imported_runs(tmp_path, folder)


@pytest.mark.slow
def test_a_retried_finalize_is_answered_as_the_first(serve: Start, store: Path) -> None:
    """The SDK retries a finalize whose answer it did not get (a timeout): the retry is
    answered as the first was, before the import of the run and after it."""
    folder = MCPJAM / "1.14.0" / "captured" / "reporter"
    start_body, *batches, finalize = sorted(folder.glob("0*.json"))
    served = serve(store)
    run_id = served.post("/sdk/v1/evals/runs/start", start_body.read_bytes()).json()["runId"]
    for batch in batches:
        body = batch.read_bytes().replace(b"run_fixture_1", run_id.encode())
        assert served.post("/sdk/v1/evals/runs/iterations", body).ok
    body = finalize.read_bytes().replace(b"run_fixture_1", run_id.encode())
    first = served.post("/sdk/v1/evals/runs/finalize", body)
    assert first.status_code == 200
    answers = [served.post("/sdk/v1/evals/runs/finalize", body)]  # the run may be in, or not
    drained(served, 1 + len(batches) + 2)  # the run imported
    answers.append(served.post("/sdk/v1/evals/runs/finalize", body))
    for again in answers:
        assert (again.status_code, again.json()) == (200, first.json())
    other = body.replace(b'"externalRunId"', b'"externalRunId":"x","ignored"')
    assert served.post("/sdk/v1/evals/runs/finalize", other).status_code in (404, 409)
    # a CI retry of the whole run (its externalRunId again) once it is imported: reused
    again = served.post("/sdk/v1/evals/runs/start", start_body.read_bytes())
    assert again.json() == first.json() | {"reused": True}
    assert served.stop() == 0
    assert served_requests(store) == 2 + len(batches)  # the finalize once
    assert not any(p.is_dir() for p in served.spool.iterdir())  # no run left open


# --------------------------------------------------------------------------- back-pressure
def test_backlog_past_the_cap_is_answered_503_with_retry_after(tmp_path: Path) -> None:
    """A full spool is hard to reach through the command line: the receiver's own check."""
    spool = Spool(tmp_path / "s.spool")
    receiver = Receiver(
        spool, SdkRuns(spool), Limits(max_backlog=10, retry_after=7), None, threading.Event()
    )
    post = Request({"type": "http", "method": "POST", "headers": [(b"content-length", b"5")]})
    assert receiver.refused(post, JSON) is None
    spool.put(b"x" * 11, SDK_REPORT)
    refused = receiver.refused(post, JSON)
    assert refused is not None and refused.status == 503
    assert refused.headers == {"Retry-After": "7"}
    assert orjson.loads(refused.body)["code"] == code_pb2.UNAVAILABLE
