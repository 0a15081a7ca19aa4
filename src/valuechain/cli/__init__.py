"""The command line: thin click commands over ``api``, one module per group of verbs."""

from __future__ import annotations

from valuechain.cli import chains, funnels, ingest, recompute, tools  # noqa: F401 (registers commands)
from valuechain.cli.app import main

__all__ = ["main"]
