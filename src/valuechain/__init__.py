"""valuechain: honest user-value-chain analytics from OTLP eval traces of MCP servers.

The public API is loaded on first use (PEP 562 ``__getattr__``): importing a submodule — a
decode worker unpickling ``valuechain.ingest.source.parts.decode_part`` — runs this file
first, and an eager ``from valuechain.api import …`` here would load the whole package
(polars, DuckDB, every stage) into every worker for nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from valuechain._lazy import lazy_names
from valuechain._version import __version__

if TYPE_CHECKING:
    from valuechain.api import Store, decode, open, synth_history
    from valuechain.errors import ValuechainError

__all__ = ["Store", "ValuechainError", "__version__", "decode", "open", "synth_history"]

_LAZY = {
    "Store": "valuechain.api",
    "decode": "valuechain.api",
    "open": "valuechain.api",
    "synth_history": "valuechain.api",
    "ValuechainError": "valuechain.errors",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
