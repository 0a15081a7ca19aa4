"""Fixtures of the ingest tests, and the helper modules beside this file.

The test files of ``bytes/``, ``otlp/`` and ``source/`` import the shared helpers by name
(``from ingest_checks import decode``); pytest's prepend import mode puts this folder on
``sys.path`` when it loads this conftest, and the lines below make sure of it in any mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from ingest_builders import FRAMINGS, SMALL  # noqa: E402

from valuechain.synth import write_export  # noqa: E402


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("framings")
    paths = {"ndjson": write_export(folder / "a.jsonl", SMALL, ndjson=True).path}
    for name, flags in FRAMINGS.items():
        paths[name] = write_export(folder / f"{name}.out", SMALL, **flags).path
    paths["document"] = write_export(folder / "doc.json", SMALL).path
    return paths
