"""Shared fixtures: tiny OTLP/JSON builders, throw-away stores and a full dump of a store.

Bad inputs are built inline in the tests from these builders (a span is a plain dict the test
can break), so each test shows exactly what it feeds the ingester.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, settings

from valuechain.ingest.decode import DecodedSource
from valuechain.store import Database

# Hypothesis profiles: ``ci`` (the default: quick, every run, the same examples each time, so
# CI fails on a change and never by luck) and ``campaign`` (a long fuzzing run outside CI, new
# examples each time: HYPOTHESIS_PROFILE=campaign make test, or pytest tests/robustness). A test's
# own ``@settings(max_examples=…)`` still wins over either.
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "campaign",
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "20000")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# fixtures/public/ holds vendored copies of the spec example and the public conformance inputs.
SHARED = Path(
    os.environ.get("VALUECHAIN_SHARED", Path(__file__).resolve().parents[1] / "fixtures" / "public")
)

TRACE_ID = "5b8efff798038103d269b633813fc60c"
START_NS = 1_700_000_000_000_000_000


def span(n: int = 1, *, trace_id: str = TRACE_ID, **fields: Any) -> dict[str, Any]:
    """A valid OTLP/JSON span; ``n`` picks its span id (hex of n) and times; fields override."""
    out: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": f"{n:016x}",
        "name": f"span-{n}",
        "kind": 1,
        "startTimeUnixNano": str(START_NS + n * 1000),
        "endTimeUnixNano": str(START_NS + n * 1000 + 500),
        "attributes": [{"key": "n", "value": {"intValue": str(n)}}],
    }
    out.update(fields)
    return {k: v for k, v in out.items() if v is not ...}  # ``...`` removes a field


def request(*spans: dict[str, Any], resource: dict[str, Any] | None = None) -> dict[str, Any]:
    """An ExportTraceServiceRequest holding ``spans`` under one resource and one scope."""
    return {
        "resourceSpans": [
            {
                "resource": resource
                or {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]},
                "scopeSpans": [{"scope": {"name": "lib", "version": "1"}, "spans": list(spans)}],
            }
        ]
    }


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


def ndjson(*objs: Any) -> bytes:
    """One JSON value per line, newline-terminated (collector file-exporter framing)."""
    return b"".join(orjson.dumps(o) + b"\n" for o in objs)


def rich_request() -> dict[str, Any]:
    """One request touching every table: resource, scope, spans, attributes, events, links."""
    return request(
        span(1),
        span(
            2,
            parentSpanId=f"{1:016x}",
            spanId="AAAAAAAAAAI=",  # base64 of ...02, to exercise the hex views
            events=[
                {
                    "timeUnixNano": str(START_NS),
                    "name": "e",
                    "attributes": [{"key": "x", "value": {"boolValue": True}}],
                }
            ],
            links=[{"traceId": TRACE_ID.upper(), "spanId": f"{1:016X}"}],
            attributes=[
                {"key": "big", "value": {"stringValue": "x" * 100}},
                {"key": "odd", "value": {"weird": 1}},
            ],
        ),
        span(3, spanId="0x03"),  # quarantined
    )


def attribute_rows(decoded: DecodedSource) -> int:
    return decoded.tables["attributes"].num_rows if "attributes" in decoded.tables else 0


def assert_accounting(decoded: DecodedSource) -> None:
    """TRACE-FORMAT §5.1 for a decoded source (before the store deduplicates)."""
    assert decoded.accounting.check(decoded.span_count, attribute_rows(decoded)) == []


@pytest.fixture(scope="session")
def otlp() -> SimpleNamespace:
    """The builders above, for tests (a fixture, so no test imports conftest)."""
    return SimpleNamespace(
        TRACE_ID=TRACE_ID,
        START_NS=START_NS,
        span=span,
        request=request,
        rich_request=rich_request,
        dumps=dumps,
        ndjson=ndjson,
        attribute_rows=attribute_rows,
        assert_accounting=assert_accounting,
    )


@pytest.fixture(scope="session")
def shared() -> Path:
    """TRACE-FORMAT's example export and the nine public conformance files."""
    assert (SHARED / "conformance" / "otlp").is_dir(), f"missing {SHARED}; set VALUECHAIN_SHARED"
    return SHARED


@pytest.fixture
def db() -> Iterator[Database]:
    """A fresh in-memory store."""
    database = Database(":memory:")
    yield database
    database.close()


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, bytes | dict[str, Any]], Path]:
    """Write bytes (or a request dict as JSON) to ``tmp_path/name`` and return the path."""

    def _write(name: str, data: bytes | dict[str, Any]) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else orjson.dumps(data))
        return path

    return _write


def dump_store(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table in schema ``core`` (the ledger included), in a stable order."""
    names = [
        row[0]
        for row in database.con.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'core' ORDER BY table_name"
        ).fetchall()
    ]
    return {
        name: database.con.execute(f"SELECT * FROM core.{name} ORDER BY ALL").fetchall()
        for name in names
    }


@pytest.fixture
def dump() -> Callable[[Database], dict[str, list[tuple[Any, ...]]]]:
    """``dump(db)``: a full snapshot of the store's tables for before/after comparisons."""
    return dump_store


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files under fixtures/golden/ from the current output",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))
