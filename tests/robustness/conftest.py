"""Fixtures of the robustness tests, and the helper modules beside this file.

The test files import the shared helpers by name (``from processes import …``); the lines
below put this folder — and ``tests/ingest``, whose OTLP strategies the fuzz tests build on —
on ``sys.path`` in any import mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (str(HERE), str(HERE.parent / "ingest")):
    if folder not in sys.path:
        sys.path.insert(0, folder)
