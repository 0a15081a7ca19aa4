"""Where the bundled sample export is: ``fixtures/sample/`` of a checkout, or inside the wheel."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_NAME = "sample-export.otlp.jsonl.gz"


def sample_export_path() -> Path:
    """The sample export ``make demo`` imports."""
    checkout = Path(__file__).resolve().parents[3] / "fixtures" / "sample" / SAMPLE_NAME
    if checkout.is_file():
        return checkout
    return Path(str(resources.files("valuechain") / "_sample" / SAMPLE_NAME))
