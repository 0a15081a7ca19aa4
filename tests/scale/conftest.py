"""One local Ray for the session (it costs seconds to start); `scale_paths` finds it running
and leaves it so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    import ray  # noqa: PLC0415 (only the tests that use Ray pay for importing it)

    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    yield ray
    ray.shutdown()
