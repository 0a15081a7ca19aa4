"""Starting and stopping ``serve``: the socket, uvicorn, the importer thread, the banner.

Request bodies are decoded (checked) in worker processes (``--workers``), so the GIL stays
with the event loop and the importer thread and the decode takes another core: 200,000 spans
from 20 exporters went through at 10.0–13.0k spans/s instead of 9.0–9.4k, p50 latency
340–360 ms instead of 550–580 (two cores loaded by other work; derive once per cycle); with
the derive deferred and in-process, 9.8–11.3k instead of 9.4–10.8k, p50 490–510 ms instead
of 520–550, for ~250 MB more (the fork server and two checkers).

The socket is bound here (so the banner names the real port, also for ``--port 0``) and
handed to uvicorn, which stops on Ctrl-C or SIGTERM after answering the requests in flight.
Then the importer takes what is spooled one last time, and the store is closed: exit 0.
A SIGKILL loses nothing acknowledged either: the next start imports the spool first.
"""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from valuechain.errors import UsageError, ValuechainError
from valuechain.pipeline.decode_pool import DecodePool
from valuechain.pipeline.lifeline import exit_with_parent
from valuechain.pipeline.worker_context import worker_context
from valuechain.serve.app import Receiver, build_app
from valuechain.serve.importer import Cycle, Importer
from valuechain.serve.mcpjam import SdkRuns
from valuechain.serve.options import LOOPBACK, TOKEN_ENV, ServeOptions
from valuechain.serve.spool import Spool, spool_folder
from valuechain.store import Database


def serve(
    store: Path,
    options: ServeOptions,
    open_store: Callable[[], Database],
    *,
    say: Callable[[str], None] = print,
    on_cycle: Callable[[Cycle], None] | None = None,
) -> int:
    """Serve until Ctrl-C or SIGTERM; return the requests acknowledged."""
    uvicorn = _server_library()

    if options.host not in LOOPBACK and not options.token:
        raise UsageError(
            f"--host {options.host}",
            "serving beyond this machine needs a token",
            f"pass --token or set ${TOKEN_ENV}; clients send Authorization: Bearer <token>",
        )
    spool = Spool(spool_folder(store))
    runs = SdkRuns(spool)
    arrived = threading.Event()
    importer = Importer(store, spool, runs, options.imports, open_store=open_store)
    stopping = threading.Event()
    workers = options.imports.decode.workers
    with _checkers(workers) as checkers, DecodePool(workers) as pool:
        first = importer.cycle(pool, settle=True)  # what a killed serve left comes first
        if first.requests:
            say(f"imported {first.requests} requests left in the spool by an earlier serve")
        sock = _bind(options.host, options.port)
        receiver = Receiver(spool, runs, options.limits, options.token, arrived, checkers)
        config = uvicorn.Config(
            build_app(receiver), log_level="warning", access_log=False, timeout_graceful_shutdown=30
        )
        server = _stoppable(uvicorn)(config)
        worker = threading.Thread(
            target=_import_loop,
            args=(importer, pool, options.interval, arrived, stopping, on_cycle, say),
            name="valuechain-serve-importer",
            daemon=True,
        )
        worker.start()
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        say(
            f"valuechain serve: listening on http://{shown}:{port} (OTLP/HTTP POST /v1/traces; "
            f"MCPJam SDK reporting) → store {store} (spool {spool.folder}); Ctrl-C stops"
        )
        try:
            server.run(sockets=[sock])
        finally:
            stopping.set()
            arrived.set()
            worker.join()
            last = importer.cycle(pool, settle=True)  # what came in during the last cycle
            if on_cycle is not None and last.requests:
                on_cycle(last)
    return receiver.received


@contextmanager
def _checkers(workers: int) -> Iterator[Executor | None]:
    """The processes that decode each request body before it is answered (``--workers``; 0:
    threads of this process). Started before the port opens, from valuechain's modules only
    (`pipeline.worker_context`); each exits with serve, however it ends (`exit_with_parent`)."""
    if workers < 1:
        yield None
        return
    context = worker_context([_CHECKER])  # only it: each checker maps what this server loaded
    watched, lifeline = context.Pipe(duplex=False)
    executor = ProcessPoolExecutor(
        workers, mp_context=context, initializer=exit_with_parent, initargs=(watched,)
    )
    try:
        for started in [executor.submit(int) for _ in range(workers)]:
            started.result()  # the workers are up before the first request
        yield executor
    finally:
        executor.shutdown(cancel_futures=True)
        lifeline.close()


_CHECKER = "valuechain.serve.otlp"  # what a checker runs (`receive_traces`)


def _import_loop(
    importer: Importer,
    pool: DecodePool,
    interval: float,
    arrived: threading.Event,
    stopping: threading.Event,
    on_cycle: Callable[[Cycle], None] | None,
    say: Callable[[str], None],
) -> None:
    """Import while serving: a cycle once requests arrived, at most one per ``interval``
    (the store is free for other commands in between)."""
    while not stopping.is_set():
        arrived.wait()
        if stopping.is_set():
            return
        arrived.clear()
        started = time.monotonic()
        try:
            cycle = importer.cycle(pool)
        except ValuechainError as exc:  # e.g. the store held too long: the spool keeps all
            say(f"import delayed: {exc.render()}")
            arrived.set()  # try again next cycle
        else:
            if on_cycle is not None and cycle.requests:
                on_cycle(cycle)
        stopping.wait(max(0.0, interval - (time.monotonic() - started)))


def _stoppable(uvicorn: Any) -> Any:
    """uvicorn's server, whose Ctrl-C or SIGTERM is a clean stop: uvicorn raises the signal
    again once it has shut down (for the handler it replaced: here the CLI's, which would
    call it an interruption and exit 130); a second Ctrl-C still forces the exit."""

    class Server(uvicorn.Server):  # type: ignore[misc]
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if bool(getattr(self, "should_exit", False)) and sig == signal.SIGINT:
                self.force_exit = True
            else:
                self.should_exit = True

    return Server


def _server_library() -> Any:
    # the serve extra: the command checked it is installed (cli/serve.py, server_module)
    import uvicorn  # noqa: PLC0415

    return uvicorn


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"--host {host} --port {port}",
            f"cannot listen there ({exc.strerror})",
            "another program may hold the port: pick another with --port",
        ) from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
