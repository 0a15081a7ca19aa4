"""The HTTP face of ``serve`` (a Starlette app run by uvicorn): routes, the token, the caps,
back-pressure. Every accepted body is durable in the spool before it is answered 200.

Routes: ``POST /v1/traces`` (OTLP/HTTP); the MCPJam SDK's ``/sdk/v1/evals/<step>`` and
``/api/v1/projects/{project}/eval-ingest/<step>`` (`serve.mcpjam`); ``GET /health``.
No route names a path: the spool's file names are made here, never taken from a request.
"""

from __future__ import annotations

import asyncio
import hmac
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool

import anyio
import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from valuechain.serve.mcpjam import SdkReply, SdkRuns
from valuechain.serve.options import Limits
from valuechain.serve.otlp import JSON, Accepted, Reply, media_type, receive_traces, status_reply
from valuechain.serve.spool import Spool

SDK_STEPS = ("report", "runs/start", "runs/iterations", "runs/finalize")


class Receiver:
    """What the routes share: the spool, the SDK runs, the token, the limits, and the
    importer's doorbell (``arrived``)."""

    def __init__(
        self,
        spool: Spool,
        runs: SdkRuns,
        limits: Limits,
        token: str | None,
        arrived: threading.Event,
        checkers: Executor | None = None,
    ) -> None:
        self.spool = spool
        self.checkers = checkers  # worker processes that decode request bodies (None: threads)
        self.runs = runs
        self.limits = limits
        self.token = token
        self.arrived = arrived
        self.decoding = anyio.Semaphore(limits.decoding)
        self.received = 0  # requests acknowledged since start

    def refused(self, request: Request, media: str) -> Reply | None:
        """Why ``request`` is not taken before its body is read: the token, the body cap,
        the backlog."""
        if self.token is not None:
            given = request.headers.get("authorization", "")
            expected = f"Bearer {self.token}"
            if not hmac.compare_digest(given.encode(), expected.encode()):
                return status_reply(
                    401,
                    media,
                    "a token is required: Authorization: Bearer <token>",
                    {"WWW-Authenticate": "Bearer"},
                )
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.limits.max_body:
            return status_reply(
                413, media, f"the body exceeds the cap of {self.limits.max_body} bytes"
            )
        if self.spool.backlog > self.limits.max_backlog:
            return status_reply(
                503,
                media,
                "the import is behind: retry later",
                {"Retry-After": str(self.limits.retry_after)},
            )
        return None

    async def body(self, request: Request, media: str) -> bytes | Reply:
        """The body, read up to the cap."""
        pieces: list[bytes] = []
        size = 0
        try:
            async for piece in request.stream():
                size += len(piece)
                if size > self.limits.max_body:
                    return status_reply(
                        413, media, f"the body exceeds the cap of {self.limits.max_body} bytes"
                    )
                pieces.append(piece)
        except ClientDisconnect:
            return status_reply(400, media, "the client went away before the body was sent")
        return b"".join(pieces)

    async def check(
        self, body: bytes, content_type: str | None, encoding: str | None
    ) -> Accepted | Reply:
        """`receive_traces` in a worker process (the GIL stays with the importer and the
        event loop; the decode takes another core), else in a thread."""
        args = (body, content_type, encoding, self.limits.max_decompressed)
        if self.checkers is not None:
            try:
                return await asyncio.wrap_future(self.checkers.submit(receive_traces, *args))
            except BrokenProcessPool:  # a worker died (killed, out of memory): threads now
                self.checkers = None
        return await run_in_threadpool(receive_traces, *args)

    def done(self) -> None:
        self.received += 1
        self.arrived.set()


def _response(reply: Reply) -> Response:
    return Response(reply.body, reply.status, reply.headers, reply.media_type)


def _sdk_response(reply: SdkReply) -> Response:
    return Response(orjson.dumps(reply.body), reply.status, media_type=JSON)


def _sdk_refusal(refused: Reply) -> Response:
    """A refusal as the SDK reads one (``{ok: false, error}``), not as OTLP's Status."""
    error = orjson.loads(refused.body).get("message", "")
    body = orjson.dumps({"ok": False, "error": error})
    return Response(body, refused.status, refused.headers, JSON)


def build_app(receiver: Receiver) -> Starlette:
    async def traces(request: Request) -> Response:
        media = media_type(request.headers.get("content-type"))
        media = media if media in ("application/x-protobuf", JSON) else JSON
        refused = receiver.refused(request, media)
        if refused is not None:
            return _response(refused)
        async with receiver.decoding:  # bodies still unread wait in the kernel's buffers
            body = await receiver.body(request, media)
            if isinstance(body, Reply):
                return _response(body)
            outcome = await receiver.check(
                body, request.headers.get("content-type"), request.headers.get("content-encoding")
            )
            if isinstance(outcome, Accepted):
                await run_in_threadpool(receiver.spool.put, outcome.body, outcome.kind)
                receiver.done()
                outcome = outcome.reply
        return _response(outcome)

    def sdk(step: Callable[[bytes], SdkReply]) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            refused = receiver.refused(request, JSON)
            if refused is not None:
                return _sdk_refusal(refused)
            body = await receiver.body(request, JSON)
            if isinstance(body, Reply):
                return _sdk_refusal(body)
            reply = await run_in_threadpool(step, body)
            if reply.status == 200:
                receiver.done()
            return _sdk_response(reply)

        return handle

    async def health(request: Request) -> Response:
        return Response(
            orjson.dumps(
                {"ok": True, "received": receiver.received, "backlog": receiver.spool.backlog}
            ),
            media_type=JSON,
        )

    runs = receiver.runs
    steps = dict(
        zip(SDK_STEPS, (runs.report, runs.start, runs.iterations, runs.finalize), strict=True)
    )
    routes = [Route("/v1/traces", traces, methods=["POST"]), Route("/health", health)]
    for name, step in steps.items():
        routes.append(Route(f"/sdk/v1/evals/{name}", sdk(step), methods=["POST"]))
        routes.append(
            Route(f"/api/v1/projects/{{project}}/eval-ingest/{name}", sdk(step), methods=["POST"])
        )
    return Starlette(routes=routes)
