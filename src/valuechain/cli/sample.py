"""Where the bundled sample export is: ``fixtures/sample/`` of a checkout, or inside the wheel."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_NAME = "sample-export.otlp.jsonl.gz"
HISTORY_NAME = "demo-history.otlp.jsonl.gz"  # six comparable weekly runs (synth.demo_history)


def sample_export_path(name: str = SAMPLE_NAME) -> Path:
    """A bundled sample export ``make demo`` imports (``name``: the sample, or the history)."""
    checkout = Path(__file__).resolve().parents[3] / "fixtures" / "sample" / name
    if checkout.is_file():
        return checkout
    return Path(str(resources.files("valuechain") / "_sample" / name))
