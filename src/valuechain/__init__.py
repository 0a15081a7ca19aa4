"""valuechain: honest user-value-chain analytics from OTLP eval traces of MCP servers."""

from __future__ import annotations

from valuechain._version import __version__
from valuechain.api import Store, decode, open, synth_history
from valuechain.errors import ValuechainError

__all__ = ["Store", "ValuechainError", "__version__", "decode", "open", "synth_history"]
