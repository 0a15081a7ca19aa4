"""The bounds of a generated history (light: the command line names them in its options)."""

from __future__ import annotations

MIN_WEEKS, MAX_WEEKS = 5, 52
PREVIOUS_ANALYZER = 11  # the analyzer the archive's older weeks are imported at
