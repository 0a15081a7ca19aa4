"""Which store a command means when it names none (light: read by the command line at start)."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_STORE = "valuechain.duckdb"
STORE_ENV = "VALUECHAIN_STORE"


def default_store_path() -> Path:
    """``$VALUECHAIN_STORE`` if set, else ``./valuechain.duckdb``."""
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)
