"""A decode worker loads the decoder, not the product: importing the module of the unit of work
(``decode_part``) must not pull in the API, the store, the query side or their engines (polars,
DuckDB), while the public API still answers from the top-level package."""

from __future__ import annotations

import subprocess
import sys

import pytest

import valuechain
from valuechain.pipeline.decode_pool import PART_DECODER

_PROBE = """
import sys
import {module}
print(" ".join(sorted(sys.modules)))
"""
_HEAVY = ("polars", "duckdb", "pydantic", "valuechain.api", "valuechain.store", "valuechain.query")


def _loaded_by(module: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def test_a_decode_worker_does_not_load_the_store_or_the_api() -> None:
    loaded = _loaded_by(PART_DECODER)
    assert "valuechain.ingest.source.parts" in loaded  # the probe did import something
    heavy = sorted(m for m in loaded if m.split(".")[0] in _HEAVY or m.startswith(_HEAVY))
    assert heavy == []


def test_the_top_level_package_loads_its_api_on_first_use() -> None:
    loaded = _loaded_by("valuechain")
    assert "valuechain.api" not in loaded and "duckdb" not in loaded
    for name in valuechain.__all__:
        assert getattr(valuechain, name) is not None, name
    assert valuechain.Store is valuechain.api.Store
    assert set(valuechain.__all__) <= set(dir(valuechain))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="nothing_here"):
        valuechain.nothing_here  # noqa: B018
