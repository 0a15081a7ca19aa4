"""Fixtures for the analytics tests: one store per session, emptied for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from analytics_store import Funnels

from valuechain.store import Database


@pytest.fixture(scope="session")
def _store() -> Iterator[Funnels]:
    db = Database(":memory:")
    try:
        yield Funnels(db)
    finally:
        db.close()


@pytest.fixture
def funnels(_store: Funnels) -> Funnels:
    """An empty store (shared, reset before each test)."""
    return _store.reset()
