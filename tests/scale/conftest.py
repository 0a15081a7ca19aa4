"""One local Ray for the session (it costs seconds to start); `scale_paths` finds it running
and leaves it so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_ray() -> Iterator[Any]:
    import ray  # noqa: PLC0415 (only the tests that use Ray pay for importing it)

    # a cluster of its own (never one a RAY_ADDRESS names), and no worker output copied onto
    # whatever stdout a later test captures
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level="ERROR",
        log_to_driver=False,
    )
    yield ray
    ray.shutdown()
