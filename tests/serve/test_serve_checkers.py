"""``serve`` answers the same whether request bodies are checked in worker processes
(``--workers 2``, the default) or in its own threads (``--workers 0``): 400 with a
``google.rpc.Status`` for a body that does not decode, 200 with ``partialSuccess`` counting
the spans quarantined."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import orjson
import pytest
import requests
from bench.serve_load import ServeProcess
from google.rpc import code_pb2, status_pb2


@pytest.mark.parametrize("workers", [2, 0])
def test_checked_bodies_are_refused_and_counted_alike(
    tmp_path: Path, workers: int, otlp: SimpleNamespace
) -> None:
    serve = ServeProcess(tmp_path / "checked.duckdb", workers=workers).start()
    try:
        garbage = requests.post(
            f"{serve.url}/v1/traces",
            data=b"\x0a\xff\xff not a request",
            headers={"content-type": "application/x-protobuf"},
            timeout=30,
        )
        body = orjson.dumps(otlp.request(otlp.span(1), otlp.span(2, spanId="zz")))
        partial = requests.post(
            f"{serve.url}/v1/traces",
            data=body,
            headers={"content-type": "application/json"},
            timeout=30,
        )
    finally:
        assert serve.stop() == 0
    assert garbage.status_code == 400
    status = status_pb2.Status.FromString(garbage.content)
    assert status.code == code_pb2.INVALID_ARGUMENT and "POST /v1/traces" in status.message
    assert partial.status_code == 200
    reply = orjson.loads(partial.content)["partialSuccess"]
    assert reply["rejectedSpans"] == "1" and "E_BAD_ID_ENCODING" in reply["errorMessage"]
