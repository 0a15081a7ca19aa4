"""valuechain: honest user-value-chain analytics from OTLP eval traces of MCP servers."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
