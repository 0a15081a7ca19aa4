"""The command line: thin click commands over ``api``, one module per group of verbs."""

from __future__ import annotations

from valuechain.cli import (  # noqa: F401 (registers commands)
    chains,
    compare,
    coverage,
    export,
    funnels,
    ingest,
    recompute,
    report,
    scale,
    serve,
    store,
    tools,
    trend,
    verdict,
)
from valuechain.cli.app import main

__all__ = ["main"]
