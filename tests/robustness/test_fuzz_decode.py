"""Fuzzing the public decode and import entry points (TRACE-FORMAT §5).

Valid exports in every framing, and the same exports broken every way a file breaks
(``otlp_fuzz``): decoding accepts them with counted issues, or rejects them with a typed error
(an ``E_*`` code naming the place) — never another exception — and the accounting invariant
(§5.1) holds on every example. Importing them into a store keeps its ledger consistent.

The number of examples comes from the Hypothesis profile (``tests/conftest.py``): ``ci`` by
default, ``HYPOTHESIS_PROFILE=campaign`` for a long run outside CI.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from ingest_checks import check_decoded
from otlp_fuzz import Export, broken_exports, exports
from processes import assert_ledger_balanced

import valuechain
from valuechain.errors import IngestError
from valuechain.ingest.decode import DecodeOptions, decode_export
from valuechain.ingest.otlp.proto import parse_request
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.store.consistency import check_ledger

OPTIONS = st.builds(
    DecodeOptions,
    salvage=st.booleans(),
    large_value_threshold=st.sampled_from([1, 64, 1 << 20]),
    max_decompressed_bytes=st.sampled_from([256, 1 << 30]),
    batch_bytes=st.sampled_from([64, 4096, 8 << 20]),
    fast=st.booleans(),
)


def _decoded(export: Export, options: DecodeOptions) -> None:
    note(f"framing={export.framing} mutations={export.mutations} {options}")
    decoded = decode_export(export.data, "fuzz.bin", options)
    check_decoded(decoded)
    if decoded.rejection is not None:
        assert isinstance(decoded.rejection, IngestError)
        assert decoded.rejection.source == "fuzz.bin" and decoded.rejection.problem
    for issue in decoded.issues:  # every issue is one of the catalogue's, with a count
        assert issue.code.value[:2] in ("E_", "W_", "I_") and issue.occurrences >= 1


@given(exports(), OPTIONS)
def test_every_valid_export_is_accepted_and_accounted(
    export: Export, options: DecodeOptions
) -> None:
    note(f"framing={export.framing}")
    decoded = decode_export(export.data, "fuzz.bin", options)
    check_decoded(decoded)
    if options.max_decompressed_bytes > 1 << 20:  # under the cap, nothing is cut
        assert decoded.status != "rejected" or decoded.rejection is not None
        assert decoded.rejection is None or decoded.rejection.code in _ACCEPTABLE_REJECTIONS.get(
            export.framing if _spanless_bare(export) else "", {"E_NO_TRACES"}
        ), decoded.rejection


# A bare protobuf request is recognised only by a real span inside (arbitrary binary parses as
# protobuf too), so one without spans reads as "not OTLP": the sniffer's documented limit.
_ACCEPTABLE_REJECTIONS = {"proto-bare": {"E_NO_TRACES", "E_NOT_OTLP"}}


def _spanless_bare(export: Export) -> bool:
    if export.framing != "proto-bare":
        return False
    request = parse_request(export.data)
    return not any(ss.spans for rs in request.resource_spans for ss in rs.scope_spans)


@given(broken_exports(), OPTIONS)
def test_a_broken_export_is_accepted_with_counted_issues_or_rejected_with_a_typed_error(
    export: Export, options: DecodeOptions
) -> None:
    _decoded(export, options)


@given(broken_exports(), st.booleans())
def test_the_library_entry_point_never_raises_on_bad_bytes(export: Export, salvage: bool) -> None:
    note(f"framing={export.framing} mutations={export.mutations}")
    check_decoded(valuechain.decode(export.data, "fuzz.bin", salvage=salvage))


@pytest.fixture(scope="module")
def fuzz_store() -> Iterator[tuple[Database, Path]]:
    with tempfile.TemporaryDirectory() as folder, Database(":memory:") as db:
        yield db, Path(folder)


@settings(
    max_examples=max(20, settings.default.max_examples // 3),  # a store per import: slower
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(broken_exports() | exports(), min_size=1, max_size=3), st.booleans())
def test_importing_broken_exports_keeps_the_store_consistent(
    fuzz_store: tuple[Database, Path], batch: list[Export], derive: bool
) -> None:
    """One store takes every example: whatever comes in, each source is reported, each ledger
    row satisfies §5.1 with the store's deduplication, and the ledger matches the spans."""
    db, folder = fuzz_store
    paths = []
    for i, export in enumerate(batch):
        note(f"{i}: framing={export.framing} mutations={export.mutations}")
        path = folder / f"source-{i}.bin"
        path.write_bytes(export.data)
        paths.append(path)
    report = import_paths(db, paths, ImportOptions(derive=derive))
    assert len(report.sources) == len(paths)
    assert {s.outcome for s in report.sources} <= {"imported", "partial", "unchanged", "rejected"}
    assert_ledger_balanced(db)
    check_ledger(db.con, db.path)
    assert db.pending_derivation() is None or not derive
