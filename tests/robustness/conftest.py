"""Fixtures of the robustness tests, and the helper modules beside this file.

The test files import the shared helpers by name (``from processes import …``); the lines
below put this folder on ``sys.path`` in any import mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
