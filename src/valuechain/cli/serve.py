"""``valuechain serve``: receive OTLP/HTTP and MCPJam SDK reports into the store, live."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime
from types import ModuleType
from typing import TYPE_CHECKING

import click

from valuechain.cli.app import main, out, store_path
from valuechain.cli.messages import summary
from valuechain.cli.options import examples, interval_option
from valuechain.errors import UsageError
from valuechain.serve.options import TOKEN_ENV

if TYPE_CHECKING:
    from valuechain.api.store import Database
    from valuechain.serve.importer import Cycle

_MIB = 1 << 20
SERVE_HINT = "install the extra: pip install 'valuechain[serve]'"


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=4318,
    show_default=True,
    help="Port to listen on (4318: OTLP/HTTP's; 0: any free port).",
)
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    show_envvar=True,
    help="Require `Authorization: Bearer TOKEN` (needed to listen beyond 127.0.0.1).",
)
@interval_option(
    1.0, "Seconds between imports of what arrived (other commands open the store between)."
)
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    default=32,
    show_default=True,
    metavar="MIB",
    help="Largest request body taken (413 past it).",
)
@click.option(
    "--max-decompressed",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    metavar="MIB",
    help="Largest body once gzip is undone (413 past it).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Worker processes decoding request bodies and large imports (0: none).",
)
@click.pass_context
@examples(
    "valuechain serve                      # 127.0.0.1:4318, the store of --store",
    'valuechain serve --host 0.0.0.0 --token "$TOKEN"   # beyond this machine',
    "valuechain --wait 10 runs             # read the store while serve runs",
)
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    token: str | None,
    interval: float,
    max_body: int,
    max_decompressed: int,
    workers: int,
) -> None:
    """Receive traces over OTLP/HTTP and MCPJam SDK eval reports, import them as they come.

    Point an OpenTelemetry exporter at http://127.0.0.1:4318/v1/traces
    (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), MCPJam's SDK at MCPJAM_BASE_URL=http://127.0.0.1:4318.

    A request is answered only once it is on disk (a spool folder beside the store); the
    import follows in batches every --interval seconds, deriving and materializing what
    arrived. Between batches the store is free: other commands read it (use --wait while a
    batch is committed). Ctrl-C or SIGTERM: requests in flight are answered, the spool
    imported, exit 0.
    """
    from valuechain import api
    from valuechain.serve.options import Limits, ServeOptions, import_options

    run = server_module().serve
    path = store_path(ctx)
    choice = ctx.find_root().obj
    options = ServeOptions(
        host=host,
        port=port,
        token=token or None,
        interval=interval,
        limits=Limits(max_body=max_body * _MIB, max_decompressed=max_decompressed * _MIB),
        imports=import_options(workers),
    )

    def open_store() -> Database:
        return api.open(path, memory_limit=choice.memory_limit, wait=options.wait).db

    def report(cycle: Cycle) -> None:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = (
            f"{now} imported {cycle.requests} requests: {cycle.spans} spans "
            f"in {cycle.seconds:.2f} s (CPU {cycle.cpu_seconds:.2f} s)"
        )
        rejected = [s for s in cycle.sources if s.outcome == "rejected"]
        if rejected:
            line += f"; {len(rejected)} sources refused, kept in the spool's rejected/ folder"
        out.print(line, highlight=False, soft_wrap=True)

    received = run(path, options, open_store, say=_say, on_cycle=report)
    summary(f"stopped: {received} requests received; every one answered 200 is in {path}")


def server_module() -> ModuleType:
    """``valuechain.serve.server``, or a `UsageError` naming the extra when the HTTP server's
    libraries (the serve extra: uvicorn, Starlette, google.rpc) are not installed."""
    try:
        import uvicorn  # noqa: F401 (started by the server; checked here, before the store opens)

        # by name, so a module already loaded does not hide a library gone since (the tests)
        server = importlib.import_module("valuechain.serve.server")
    except ImportError as exc:
        raise UsageError(
            "valuechain serve",
            f"the HTTP server is not installed ({exc.name} is missing)",
            SERVE_HINT,
        ) from exc
    return server


def _say(text: str) -> None:
    out.print(text, highlight=False, soft_wrap=True)
